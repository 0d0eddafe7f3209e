# The seed native engine (see README.md). -march=native: the binary uses every vector extension of
# the machine that builds it, so it is built per machine (npm ci / npm install runs the build) and
# never copied to another; the cpu_features action records what it needs, and src/engine/native.ts
# refuses, with a message, to load it on a CPU that lacks any of it (instead of a SIGILL).
{
  "targets": [
    {
      "target_name": "seed_native",
      "sources": ["src/addon.cc", "src/matmul.cc", "src/elementwise.cc", "src/attention.cc", "src/attention_decode.cc", "src/decoder.cc", "src/small_gemm.cc", "src/lm_head.cc", "src/signals.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_CPP_EXCEPTIONS", "NAPI_VERSION=8"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17"],
      "cflags_cc": ["-std=c++17", "-O3", "-march=native", "-fopenmp", "-fno-math-errno", "-fno-trapping-math", "-fassociative-math", "-fno-signed-zeros", "-Wall", "-Wno-unused-parameter"],
      "libraries": ["-ldnnl", "-fopenmp"],
      # SEED_NATIVE_SANITIZE=address: an AddressSanitizer build (build-asan.mjs makes one elsewhere,
      # leaving this production build alone; README.md says how to run the tests against it).
      "variables": {"sanitize%": "<!(node -p \"process.env.SEED_NATIVE_SANITIZE || ''\")"},
      "conditions": [
        ["sanitize=='address'", {
          "cflags_cc": ["-O1", "-g", "-fsanitize=address", "-fno-omit-frame-pointer"],
          "ldflags": ["-fsanitize=address"]
        }]
      ],
      "actions": [
        {
          "action_name": "cpu_features",
          "inputs": ["cpu-features.mjs"],
          "outputs": ["<(PRODUCT_DIR)/seed_native.cpu.json"],
          "action": ["node", "cpu-features.mjs", "<(PRODUCT_DIR)/seed_native.cpu.json"]
        }
      ]
    }
  ]
}
