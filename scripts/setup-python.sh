#!/usr/bin/env bash
# The Python side of the test set-up: a virtual environment in .venv with the reference
# implementations the interoperability tests compare against (scripts/python/requirements-test.txt).
# Safe to re-run: it reinstalls only when a requirements file changed. The product never runs
# Python; tests that need it find .venv/bin/python (src/testing/python.ts) and skip without it.
set -euo pipefail
cd "$(dirname "$0")/.."

hash=$(sha256sum scripts/python/requirements-test.txt | cut -c1-16)
if [ -f .venv/.seed-req-hash ] && [ "$(cat .venv/.seed-req-hash)" = "$hash" ]; then exit 0; fi

echo "[setup] python test environment (.venv)"
python3 -m venv .venv
.venv/bin/pip install -q --disable-pip-version-check --upgrade pip >/dev/null
.venv/bin/pip install -q --disable-pip-version-check -r scripts/python/requirements-test.txt
echo "$hash" > .venv/.seed-req-hash
