/**
 * The Java reference for interoperability tests: the JDK's `java` (its source launcher compiles a
 * single-file program on the fly) and the Lucene jars `scripts/setup-java.sh` puts in
 * `.cache/lucene`. The product never runs Java; a test that compares against Lucene asks here
 * and skips, with this reason, when either is missing.
 */
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");

/** The Lucene jars the reference programs need, in class-path order. */
export const LUCENE_JARS: readonly string[] = ["lucene-core-8.11.0.jar", "lucene-analyzers-common-8.11.0.jar"].map((j) => resolve(ROOT, ".cache/lucene", j));

/** Why a Lucene-backed test cannot run here, or false when it can (the value `test` takes as `skip`). */
export function luceneSkip(): string | false {
  const missing = LUCENE_JARS.find((j) => !existsSync(j));
  if (missing !== undefined) return `no ${missing} (run scripts/setup-java.sh)`;
  const r = spawnSync("javac", ["-version"], { encoding: "utf8" });
  if (r.status !== 0) return "no JDK (javac) on PATH";
  return false;
}

/** Runs a single-file Java program of `scripts/interop/` with the Lucene jars; returns stdout or throws with stderr. */
export function runLuceneProgram(file: string, args: readonly string[], input: string): string {
  const r = spawnSync("java", ["-cp", LUCENE_JARS.join(":"), resolve(ROOT, "scripts/interop", file), ...args], {
    input, encoding: "utf8", maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`java ${file} failed (${r.status}): ${r.stderr.trim().split("\n").slice(-3).join(" | ")}`);
  return r.stdout;
}
