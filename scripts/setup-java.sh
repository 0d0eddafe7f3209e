#!/usr/bin/env bash
# The Java side of the test set-up: the Lucene 8.11.0 jars (the version Pyserini 0.17.0 bundles,
# which WebShop pins) in .cache/lucene, fetched from Maven Central with Maven. Only the interop
# test of WebShop's product search uses them (scripts/interop/LuceneBm25.java, run by the JDK's
# source launcher); the product never runs Java. Safe to re-run: it fetches only what is missing,
# and without java or mvn it says so and leaves the test to skip.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=.cache/lucene
jars=(lucene-core lucene-analyzers-common)
version=8.11.0
missing=0
for j in "${jars[@]}"; do [ -f "$dir/$j-$version.jar" ] || missing=1; done
[ "$missing" = 0 ] && exit 0
if ! command -v mvn >/dev/null || ! command -v javac >/dev/null; then
  echo "[setup] no mvn/javac: the Lucene interop test will skip"
  exit 0
fi
echo "[setup] Lucene $version jars (.cache/lucene)"
mkdir -p "$dir"
for j in "${jars[@]}"; do
  mvn -q -B dependency:copy -Dartifact="org.apache.lucene:$j:$version" -DoutputDirectory="$dir" >/dev/null
done
