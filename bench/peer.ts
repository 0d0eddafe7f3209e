/**
 * The PyTorch peer process of the benchmarks (bench/peers/torch_peer.py): which Python runs it
 * and how one measurement request is sent. A user today would pick PyTorch 2.x from PyPI, so the
 * project's virtual environment (`.venv`, made by `make bench`) comes first; Debian's
 * python3-torch (1.13) is the fallback.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { cpuInfo } from "../src/engine/cpu.ts";
import { loaderEnv } from "../src/engine/native.ts";

/** Pythons tried in order: the repository's .venv, then the system's. */
export function peerCandidates(): string[] {
  const venv = fileURLToPath(new URL("../.venv/bin/python", import.meta.url));
  return [...(existsSync(venv) ? [venv] : []), "/usr/bin/python3", "python3"];
}

/** The first Python that imports torch, or null. */
export function peerPython(): string | null {
  for (const p of peerCandidates()) {
    const r = spawnSync(p, ["-c", "import torch"], { stdio: "ignore", timeout: 120_000 });
    if (r.status === 0) return p;
  }
  return null;
}

/** Runs the peer on some measurements; an empty object (and a note) when it fails or times out. */
export function runPeer(python: string, opts: object, timeoutS: number, notes: string[]): Record<string, number | string> {
  const cpu = cpuInfo();
  // Debian's OpenBLAS mis-detects some CPUs (on an AVX-512 one it fell back to an SSE3 kernel); SkylakeX kernels need AVX-512 and die
  // with SIGILL without it, so pick the core type from the flags.
  const coretype = cpu.avx512 ? "SkylakeX" : cpu.avx2 ? "Haswell" : undefined;
  const env: NodeJS.ProcessEnv = { ...process.env, ...(coretype ? { OPENBLAS_CORETYPE: coretype } : {}) };
  // Our loader's OpenMP setting is ours: the peer's libgomp keeps its own default (until
  // 2026-12-06 it inherited OMP_WAIT_POLICY=passive from us, which slowed its decoding).
  for (const k of loaderEnv()) delete env[k];
  const script = fileURLToPath(new URL("./peers/torch_peer.py", import.meta.url));
  const r = spawnSync(python, [script, JSON.stringify(opts)], { env, encoding: "utf8", timeout: timeoutS * 1000, maxBuffer: 1 << 20 });
  if (r.error || r.status !== 0) {
    notes.push(`torch peer ${JSON.stringify((opts as { measure: string[] }).measure)} failed: ${r.error?.message ?? r.stderr.trim().split("\n").pop()}`);
    return {};
  }
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as Record<string, number | string>;
}
