// Fuzzy matching and option crediting against the real thefuzz 0.19.0 (the version WebShop and
// verl-agent pin, in .venv without python-Levenshtein, so difflib scores): token_set_ratio on
// thousands of catalogue option values, goal option tuples and human-annotated attribute pairs
// must be identical, and so must the option count of upstream's get_option_reward.
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { Rng } from "../../core/rng.ts";
import { pythonSkip, runPython } from "../../testing/python.ts";
import { COLOR_SET } from "./colors.ts";
import { loadHumanInstructionsFile } from "./data-files.ts";
import { tokenSetRatio } from "./fuzz.ts";
import { pyStrRepr } from "./py-text.ts";
import { goalOptionItems, optionMatches, type GoalOptionItem } from "./reward.ts";
import { realShop } from "./shop.ts";

const DIR = resolve(import.meta.dirname, "../../../../shared/data/webshop");
const skip = pythonSkip("thefuzz");

// Reads JSON [[a, b], ...] (a list for b means a tuple) and prints thefuzz's scores; refuses to
// run if python-Levenshtein is present, since thefuzz would then not score with difflib.
const PY_RATIOS = `
import json, sys
from thefuzz import fuzz
assert fuzz.SequenceMatcher.__module__ == "difflib", fuzz.SequenceMatcher.__module__
pairs = json.load(sys.stdin)
conv = lambda x: tuple(x) if isinstance(x, list) else x
print(json.dumps([fuzz.token_set_ratio(conv(a), conv(b)) for a, b in pairs]))
`;

// upstream get_option_reward's count, written from goal.py's rules: normalize_color is a
// substring test on strings and element equality on tuples (Python's "in").
const PY_OPTIONS = `
import json, sys
from thefuzz import fuzz
data = json.load(sys.stdin)
colors = data["colors"]
def norm(x):
    for c in colors:
        if c in x:
            return c
    return x
out = []
for chosen, goal in data["cases"]:
    goal = [tuple(g) if isinstance(g, list) else g for g in goal]
    picked = [norm(o) for o in chosen]
    n = 0
    for g in (norm(g) for g in goal):
        for p in picked:
            if fuzz.token_set_ratio(p, g) > 85:
                n += 1
                break
    out.append(n)
print(json.dumps(out))
`;

test("token_set_ratio equals thefuzz 0.19.0 (difflib) on catalogue options, goal tuples and human attributes", { skip }, () => {
  const shop = realShop({ catalog: resolve(DIR, "items_shuffle_1000.json") });
  const rng = Rng.from(15);
  const pairs: [string, string | readonly [string, string]][] = [];
  for (const p of shop.products) {
    for (const g of p.options) {
      for (const v of g.values.slice(0, 6)) {
        const other = g.values[rng.int(g.values.length)]!;
        pairs.push([v, other], [other, [g.name, v]]);
      }
    }
  }
  const human = loadHumanInstructionsFile(resolve(DIR, "items_human_ins.json"));
  const records = [...human.values()].flat();
  for (let k = 0; k < 3000; k++) {
    const r = records[rng.int(records.length)]!;
    const g = r.instructionAttributes[rng.int(Math.max(1, r.instructionAttributes.length))];
    const a = r.productAttributes[rng.int(Math.max(1, r.productAttributes.length))];
    if (g !== undefined && a !== undefined) pairs.push([a, g]);
    const o = r.instructionOptions[0];
    if (o !== undefined && g !== undefined) pairs.push([o, `${g} ${o}`]);
  }
  // Edge cases of processing: Latin-1 dropped, underscores kept, non-BMP text, long strings (autojunk).
  pairs.push(["caf\u00e9_latte", "cafe latte"], ["snake_case", "snake case"], ["\u{1F600} smile", "smile \u{1F600}"],
    ["a".repeat(150) + "b".repeat(100), "ab".repeat(120)], ["", "x"], ["-", "--"]);
  assert.ok(pairs.length > 5000, `${pairs.length} pairs`);
  const want = JSON.parse(runPython(PY_RATIOS, JSON.stringify(pairs))) as number[];
  const got = pairs.map(([a, b]) => tokenSetRatio(a, typeof b === "string" ? b : `(${pyStrRepr(b[0])}, ${pyStrRepr(b[1])})`));
  const diff = pairs.flatMap((p, i) => (got[i] === want[i] ? [] : [`${JSON.stringify(p)}: ${got[i]} vs ${want[i]}`]));
  assert.deepEqual(diff.slice(0, 10), [], `${diff.length} of ${pairs.length} differ`);
});

test("option crediting equals upstream get_option_reward on real synthetic goals (tuples), right and wrong choices", { skip }, () => {
  const shop = realShop({ catalog: resolve(DIR, "items_shuffle_1000.json") });
  const rng = Rng.from(16);
  const cases: [string[], GoalOptionItem[]][] = [];
  const withOptions = shop.goals.filter((g) => g.goalOptions.length > 0);
  for (let k = 0; k < 1500; k++) {
    const goal = withOptions[rng.int(withOptions.length)]!;
    const sibling = withOptions.find((g, i) => g.asin === goal.asin && i >= rng.int(withOptions.length)) ?? goal;
    cases.push([[...goal.goalOptions], goalOptionItems(goal)], [[...sibling.goalOptions], goalOptionItems(goal)]);
  }
  const want = JSON.parse(runPython(PY_OPTIONS, JSON.stringify({ colors: COLOR_SET, cases }))) as number[];
  const got = cases.map(([chosen, goal]) => optionMatches(chosen, goal));
  const diff = cases.flatMap((c, i) => (got[i] === want[i] ? [] : [`${JSON.stringify(c)}: ${got[i]} vs ${want[i]}`]));
  assert.deepEqual(diff.slice(0, 10), [], `${diff.length} of ${cases.length} differ`);
});
