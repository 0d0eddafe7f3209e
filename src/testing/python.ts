/**
 * The Python reference environment for interoperability tests: `.venv/bin/python`, made by
 * `scripts/setup-python.sh` (run by `make test` and CI). The product never runs Python; a test
 * that compares against a PyPI reference implementation asks here and skips, with this reason,
 * when the environment is missing.
 */
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

/** Absolute path of the test environment's interpreter. */
export const VENV_PYTHON = resolve(import.meta.dirname, "../../.venv/bin/python");

/** Why a Python-backed test cannot run here, or false when it can (the value `test` takes as `skip`). */
export function pythonSkip(...modules: string[]): string | false {
  if (!existsSync(VENV_PYTHON)) return "no .venv (run scripts/setup-python.sh)";
  for (const m of modules) {
    const r = spawnSync(VENV_PYTHON, ["-c", `import ${m}`], { encoding: "utf8" });
    if (r.status !== 0) return `python module ${m} is not in .venv (add it to scripts/python/requirements-test.txt)`;
  }
  return false;
}

/** Runs a Python script in the test environment with `input` on stdin; returns stdout or throws with stderr. */
export function runPython(script: string, input = "", args: string[] = []): string {
  const r = spawnSync(VENV_PYTHON, ["-c", script, ...args], { input, encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`python failed (${r.status}): ${r.stderr.trim().split("\n").slice(-3).join(" | ")}`);
  return r.stdout;
}
