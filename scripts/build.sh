#!/usr/bin/env bash
# Configures and builds tony. Usage: scripts/build.sh [default|asan]  (CMake presets)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
cmake --preset "$preset" >/dev/null
jobs=$(nproc)
cmake --build --preset "$preset" -j "$jobs" 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\] ' || true
test "${PIPESTATUS[0]}" -eq 0
