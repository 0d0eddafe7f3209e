#!/usr/bin/env node
// Records which CPU features `-march=native` compiled into the addon, as the /proc/cpuinfo flag
// names a CPU must report to run it: `node cpu-features.mjs <out.json>` (a binding.gyp action
// writes build/Release/seed_native.cpu.json). src/engine/native.ts reads the file before loading
// the addon and refuses, with a message, a binary built on a machine with features this one lacks,
// instead of dying of SIGILL. It is not a general CPU database: features with no codegen effect
// are left out, and on non-x86 machines the list is empty (no check).
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";

// GCC's predefined macro -> the Linux /proc/cpuinfo flag of the same feature.
const FLAG_OF_MACRO = {
  __SSE3__: "pni", __SSSE3__: "ssse3", __SSE4_1__: "sse4_1", __SSE4_2__: "sse4_2", __POPCNT__: "popcnt",
  __AVX__: "avx", __AVX2__: "avx2", __FMA__: "fma", __F16C__: "f16c", __BMI__: "bmi1", __BMI2__: "bmi2",
  __LZCNT__: "abm", __MOVBE__: "movbe", __AES__: "aes", __PCLMUL__: "pclmulqdq", __SHA__: "sha_ni", __ADX__: "adx",
  __GFNI__: "gfni", __VAES__: "vaes", __VPCLMULQDQ__: "vpclmulqdq", __AVXVNNI__: "avx_vnni",
  __AVX512F__: "avx512f", __AVX512CD__: "avx512cd", __AVX512BW__: "avx512bw", __AVX512DQ__: "avx512dq",
  __AVX512VL__: "avx512vl", __AVX512IFMA__: "avx512ifma", __AVX512VBMI__: "avx512vbmi", __AVX512VBMI2__: "avx512_vbmi2",
  __AVX512VNNI__: "avx512_vnni", __AVX512BITALG__: "avx512_bitalg", __AVX512VPOPCNTDQ__: "avx512_vpopcntdq",
  __AVX512BF16__: "avx512_bf16", __AVX512FP16__: "avx512_fp16", __AVX512VP2INTERSECT__: "avx512_vp2intersect",
  __AMX_TILE__: "amx_tile", __AMX_INT8__: "amx_int8", __AMX_BF16__: "amx_bf16",
};

const out = process.argv[2];
if (out === undefined) {
  console.error("usage: node cpu-features.mjs <out.json>");
  process.exit(2);
}
const cxx = process.env.CXX || "g++";
const macros = execFileSync(cxx, ["-march=native", "-dM", "-E", "-x", "c++", "/dev/null"], { encoding: "utf8" });
const defined = new Set(macros.split("\n").map((l) => l.split(" ")[1]).filter((m) => m !== undefined));
const requires = Object.entries(FLAG_OF_MACRO).filter(([m]) => defined.has(m)).map(([, flag]) => flag).sort();
writeFileSync(out, JSON.stringify({ march: "native", compiler: cxx, requires }, null, 2) + "\n");
