/**
 * CPU facts the engine reports (`seed doctor`) and uses for the matmul peak: ISA flags from
 * /proc/cpuinfo (Linux; empty elsewhere), the nominal clock and the number of usable cores.
 */
import { readFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";

/** What the engine needs to know about the CPU. */
export type CpuInfo = {
  readonly model: string;
  readonly avx2: boolean;
  readonly avx512: boolean;
  readonly avx512bf16: boolean;
  readonly amx: boolean;
  readonly fma: boolean;
  /** Nominal clock in GHz (from the model name's "@ x.xGHz", else /proc's current MHz). */
  readonly ghz: number;
  readonly cores: number;
};

let cached: CpuInfo | undefined;

/** The CPU of this machine (read once). */
export function cpuInfo(): CpuInfo {
  if (cached !== undefined) return cached;
  let flags = new Set<string>();
  let model = cpus()[0]?.model ?? "unknown";
  let mhz = cpus()[0]?.speed ?? 0;
  try {
    const text = readFileSync("/proc/cpuinfo", "utf8");
    const f = /^flags\s*:\s*(.*)$/m.exec(text);
    if (f) flags = new Set(f[1]!.trim().split(/\s+/));
    const m = /^model name\s*:\s*(.*)$/m.exec(text);
    if (m) model = m[1]!.trim();
    const s = /^cpu MHz\s*:\s*([\d.]+)$/m.exec(text);
    if (s && mhz === 0) mhz = Number(s[1]);
  } catch {
    // not Linux: report no ISA extensions rather than guessing
  }
  const nominal = /@\s*([\d.]+)\s*GHz/i.exec(model);
  cached = {
    model,
    avx2: flags.has("avx2"),
    avx512: flags.has("avx512f"),
    avx512bf16: flags.has("avx512_bf16"),
    amx: flags.has("amx_bf16") && flags.has("amx_tile"),
    fma: flags.has("fma"),
    ghz: nominal ? Number(nominal[1]) : mhz / 1000,
    cores: availableParallelism(),
  };
  return cached;
}

/**
 * Theoretical fp32 peak in GFLOP/s: cores × GHz × FMA units × SIMD lanes × 2 (an FMA is two
 * flops). Lanes are 16 with AVX-512, 8 with AVX2; we assume two FMA units per core, true of the
 * server cores this targets (Skylake-SP and later Xeons, Zen 2 and later EPYC). Turbo clocks are
 * not known from /proc, so the nominal clock is used: a real kernel can exceed 100% under turbo.
 */
export function fp32PeakGflops(cpu: CpuInfo = cpuInfo(), cores = cpu.cores): number {
  const lanes = cpu.avx512 ? 16 : cpu.avx2 ? 8 : 4;
  const fmaUnits = cpu.fma ? 2 : 1;
  return cores * cpu.ghz * fmaUnits * lanes * 2;
}
