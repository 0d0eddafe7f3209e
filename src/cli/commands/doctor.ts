/**
 * `seed doctor [--json]`: which engine runs (native oneDNN addon or the TypeScript reference),
 * the oneDNN version, CPU features (AVX-512, AMX, bf16), compute threads, and why the native
 * engine is not in use when it is not. `--json` prints one object with stable keys.
 */
import { parseOptions, printJson } from "../args.ts";
import { cpuInfo, fp32PeakGflops } from "../../engine/cpu.ts";
import { createEngine } from "../../engine/engine.ts";
import { nativeAddonPath } from "../../engine/native.ts";
import type { Command } from "../main.ts";

/** The doctor report (keys are part of the CLI contract). */
export function doctorReport(): Record<string, string | number | boolean | null> {
  const engine = createEngine();
  const cpu = cpuInfo();
  return {
    engine: engine.kind,
    onednn: engine.info.onednn,
    amx: cpu.amx,
    avx512: cpu.avx512,
    avx512_bf16: cpu.avx512bf16,
    avx2: cpu.avx2,
    bf16_fast: engine.info.bf16Fast,
    threads: engine.info.threads,
    cores: cpu.cores,
    cpu: cpu.model,
    fp32_peak_gflops: Number(fp32PeakGflops(cpu, Math.min(cpu.cores, engine.info.threads)).toFixed(1)),
    f32_matmul_impl: engine.info.f32Impl,
    bf16_matmul_impl: engine.info.bf16Impl,
    addon: nativeAddonPath(),
    node: process.version,
    fallback_reason: engine.info.fallbackReason,
    // Which dtype the matmuls of scoring and training use; the checkpoint's dtype decides, and the
    // embedded/demo models are f32 (bf16 measured no faster for their whole update: docs/PERFORMANCE.md).
    compute_dtype: `f32 checkpoints (embedded/demo): f32; bf16 checkpoints: ${engine.info.bf16Fast ? "bf16" : "f32 (no fast bf16 kernel)"}; decoding: f32`,
    decode: engine.hasDecoder ? "fused (one native call per step)" : "per-kernel",
    // What libgomp read when the addon loaded: engine/native.ts sets the bounded spin unless the user chose.
    openmp_wait: engine.kind !== "native" ? null
      : process.env["OMP_WAIT_POLICY"] !== undefined ? `OMP_WAIT_POLICY=${process.env["OMP_WAIT_POLICY"]}`
      : `spin GOMP_SPINCOUNT=${process.env["GOMP_SPINCOUNT"] ?? "(libgomp default)"}, then sleep`,
  };
}

/** The `seed doctor` command. */
export const command: Command = {
  summary: "show which engine runs, oneDNN, CPU features, threads",
  async run(argv) {
    const { values } = parseOptions(argv, { json: { type: "boolean" }, help: { type: "boolean" } }, false);
    if (values.help) {
      console.log("usage: seed doctor [--json]\n\nReports the active engine, oneDNN version, CPU features and threads.");
      return 0;
    }
    const r = doctorReport();
    if (values.json) {
      printJson(r);
      return 0;
    }
    const fb = r["fallback_reason"] === null ? "" : ` (fallback: ${r["fallback_reason"]})`;
    console.log(`engine     ${r["engine"]}${fb}`);
    console.log(`oneDNN     ${r["onednn"] ?? "not loaded"}  f32 matmul: ${r["f32_matmul_impl"] ?? "-"}  bf16 matmul: ${r["bf16_matmul_impl"] ?? "none"}`);
    console.log(`cpu        ${r["cpu"]}, ${r["cores"]} cores; avx2 ${r["avx2"]}, avx512 ${r["avx512"]}, avx512_bf16 ${r["avx512_bf16"]}, amx ${r["amx"]}`);
    console.log(`threads    ${r["threads"]} (large GEMMs; small ops use 1)  fp32 peak ${r["fp32_peak_gflops"]} GFLOP/s`);
    console.log(`bf16       ${r["bf16_fast"] ? "fast kernels: bf16 configs compute in bf16" : "no fast kernel: bf16 configs compute in f32"}`);
    console.log(`dtype      ${r["compute_dtype"]}`);
    console.log(`decode     ${r["decode"]}`);
    return 0;
  },
};
