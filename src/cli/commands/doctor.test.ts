// `seed doctor --json`: one JSON object with the documented keys, from the real CLI entry point.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

const root = resolve(import.meta.dirname, "../../..");

test("seed doctor --json prints one object with engine, onednn, amx, avx512, threads and fallback_reason", () => {
  const r = spawnSync(process.execPath, ["bin/seed.js", "doctor", "--json"], { cwd: root, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split("\n");
  assert.equal(lines.length, 1);
  const o = JSON.parse(lines[0]!) as Record<string, unknown>;
  assert.ok(o["engine"] === "native" || o["engine"] === "reference");
  assert.equal(typeof o["amx"], "boolean");
  assert.equal(typeof o["avx512"], "boolean");
  assert.ok(Number.isInteger(o["threads"]) && (o["threads"] as number) >= 1);
  if (o["engine"] === "native") {
    assert.match(String(o["onednn"]), /^\d+\.\d+\.\d+$/);
    assert.equal(o["fallback_reason"], null);
  } else {
    assert.equal(o["onednn"], null);
    assert.equal(typeof o["fallback_reason"], "string");
  }
});

test("seed doctor reports a forced reference engine and why", () => {
  const r = spawnSync(process.execPath, ["bin/seed.js", "doctor", "--json"], { cwd: root, encoding: "utf8", env: { ...process.env, SEED_ENGINE: "reference" } });
  const o = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.equal(o["engine"], "reference");
  assert.match(String(o["fallback_reason"]), /SEED_ENGINE/);
});

test("seed doctor names the OpenMP wait policy: the bounded spin by default, the user's setting when given", () => {
  const run = (env: Record<string, string>) => {
    const clean = { ...process.env };
    delete clean["OMP_WAIT_POLICY"];
    delete clean["GOMP_SPINCOUNT"];
    const r = spawnSync(process.execPath, ["bin/seed.js", "doctor", "--json"], { cwd: root, encoding: "utf8", env: { ...clean, ...env } });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };
  const d = run({});
  if (d["engine"] !== "native") {
    assert.equal(d["openmp_wait"], null);
    return;
  }
  assert.equal(d["openmp_wait"], "spin GOMP_SPINCOUNT=100000, then sleep");
  assert.equal(run({ OMP_WAIT_POLICY: "passive" })["openmp_wait"], "OMP_WAIT_POLICY=passive");
  assert.equal(run({ GOMP_SPINCOUNT: "5000" })["openmp_wait"], "spin GOMP_SPINCOUNT=5000, then sleep");
});
