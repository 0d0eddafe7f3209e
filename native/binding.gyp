{
  "targets": [
    {
      "target_name": "seed_native",
      "sources": ["src/addon.cc", "src/matmul.cc", "src/elementwise.cc", "src/attention.cc", "src/lm_head.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_CPP_EXCEPTIONS", "NAPI_VERSION=8"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17"],
      "cflags_cc": ["-std=c++17", "-O3", "-march=native", "-fopenmp", "-fno-math-errno", "-fno-trapping-math", "-fassociative-math", "-fno-signed-zeros", "-Wall", "-Wno-unused-parameter"],
      "libraries": ["-ldnnl", "-fopenmp"]
    }
  ]
}
