#!/usr/bin/env bash
# Configures and builds tony. Usage: scripts/build.sh [default|asan|tsan]  (CMake presets)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
cmake --preset "$preset" >/dev/null
log=$(mktemp -t tony-build-XXXXXX.log)
if ! cmake --build --preset "$preset" -j "$(nproc)" >"$log" 2>&1; then
  grep -E 'error|FAILED|undefined reference' "$log" | head -n 40 || true
  echo "build ($preset) failed; full log: $log" >&2
  exit 1
fi
rm -f "$log"
