// Time of parseSkill on adversarial answers at growing sizes (issue 11: the slice-per-brace reader
// took 8.1 s at 16 KB). Linear means the time grows like the size.
//   node --import tsx bench/parse-skill.ts
import { parseSkill } from "../src/skills/parse-skill.ts";

const shapes: Record<string, (n: number) => string> = {
  "open braces": (n) => "{".repeat(n),
  "balanced braces": (n) => "{".repeat(n / 2) + "}".repeat(n / 2),
  "nested keys, broken inside": (n) => '{"a":'.repeat(n / 6) + "x" + "}".repeat(n / 6),
  "lenient nesting": (n) => "{a:".repeat(n / 3),
  "unclosed fences": (n) => "```\n{".repeat(n / 5),
  "quotes after braces": (n) => '{"'.repeat(n / 2),
};
for (const [name, make] of Object.entries(shapes)) {
  const cells: string[] = [];
  for (const kb of [16, 64, 256]) {
    const text = make(kb * 1024);
    const t0 = performance.now();
    parseSkill(text);
    cells.push(`${kb} KB ${(performance.now() - t0).toFixed(0)} ms`);
  }
  console.log(`${name.padEnd(28)} ${cells.join("  ")}`);
}
