#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what is needed, checks formatting, builds
# tony twice (release, and ASan+UBSan), runs clang-tidy (scripts/clang-tidy.sh), fuzzes each
# decoder briefly (scripts/fuzz.sh), and runs every CTest tier: unit, local, frameworks, yarn,
# secure.
# Usage: scripts/test.sh [ctest args...]   e.g. scripts/test.sh -L unit
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/setup-frameworks.sh

echo "== format check (clang-format, .clang-format)"
files=$(git ls-files '*.cc' '*.h' | grep -v '^hadoop/proto/' || true)
clang-format --dry-run -Werror $files

echo "== build (release)"
bash scripts/build.sh default
echo "== clang-tidy (.clang-tidy; scripts/clang-tidy.sh)"
bash scripts/clang-tidy.sh
echo "== build (ASan+UBSan)"
bash scripts/build.sh asan
echo "== fuzz every decoder for 20 s (clang, libFuzzer; scripts/fuzz.sh)"
bash scripts/fuzz.sh 20

export TONY_HOME="$(mktemp -d -t tony-test-home-XXXXXX)"
trap 'rm -rf "$TONY_HOME"' EXIT

echo "== unit and local-engine tests under ASan+UBSan"
(cd build-asan && ctest -L 'unit|local' --output-on-failure -j 2)

echo "== all tests (release build)"
cd build
ctest --output-on-failure "$@"
