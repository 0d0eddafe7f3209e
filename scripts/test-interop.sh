#!/usr/bin/env bash
# `make test-interop`: the Tinker client against SkyRL's real Tinker server (JAX back end, CPU).
# Installs skyrl with its tinker and jax extras from PyPI into a virtual environment (default
# .cache/interop-venv; SEED_INTEROP_VENV reuses another), then runs scripts/interop-skyrl.ts,
# which writes a tiny random Qwen3 checkpoint with our own HF writer, starts the server on
# 127.0.0.1 and checks log-probs, a falling loss and kill + resume. .ci/run runs it after the
# tests (about 6 minutes with a fresh install; docs/SCALE-OUT.md). Needs Python >= 3.12
# (SEED_PYTHON, else the first python3.13 / python3.12 that runs).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
venv="${SEED_INTEROP_VENV:-.cache/interop-venv}"
# The first Python >= 3.12 that runs: a pyenv shim named python3.12 may exist and still fail.
py="${SEED_PYTHON:-}"
if [ -z "$py" ]; then
  for c in python3.13 python3.12 /root/.pyenv/versions/3.12*/bin/python3.12; do
    if "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then py="$c"; break; fi
  done
fi
[ -n "$py" ] || { echo "[interop] needs Python >= 3.12 (set SEED_PYTHON)" >&2; exit 2; }
# `--check-python`: only say (exit status) whether such a Python exists (.ci/run asks).
[ "${1:-}" = "--check-python" ] && exit 0
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import skyrl.tinker.api, jax" 2>/dev/null; then
  echo "[interop] installing skyrl[tinker,jax] into $venv" >&2
  "$py" -m venv "$venv"
  # aiohttp: imported by skyrl.tinker.api but missing from the tinker extra (skyrl 0.4.0).
  "$venv/bin/pip" install --quiet "skyrl[tinker,jax]>=0.4,<0.5" aiohttp
fi
installed=$(date +%s)
echo "[interop] install: $((installed - start)) s" >&2
# SkyRL's API server starts its engine with `uv run [flags] -m skyrl.tinker.engine ...`, the flags
# read from its parent's command line, which must look like `uv run [flags] -- python -m ...`. In a
# plain venv this shim stands in for uv: the API server is started through it (so the shim is that
# parent), and it runs whatever module follows -m with the venv's python. It stays the parent (no
# exec), so the API server sees its command line.
shim="$venv/seed-shim"
mkdir -p "$shim"
cat > "$shim/uv" <<'SHIM'
#!/bin/sh
[ "$1" = run ] || { echo "uv shim: only 'uv run' is supported" >&2; exit 2; }
while [ $# -gt 0 ] && [ "$1" != "-m" ]; do shift; done
"$SEED_INTEROP_PYTHON" "$@"
exit $?
SHIM
chmod +x "$shim/uv"
npx tsx scripts/interop-skyrl.ts --python "$(cd "$venv" && pwd)/bin/python" --shim-dir "$(cd "$shim" && pwd)" "$@"
echo "[interop] total: $(($(date +%s) - start)) s (install $((installed - start)) s)" >&2
