#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what is needed, checks formatting, builds
# tony three times (release, ASan+UBSan, TSan), runs clang-tidy (scripts/clang-tidy.sh), fuzzes
# each decoder briefly (scripts/fuzz.sh), and runs every CTest tier: unit and local under both
# sanitizer builds and the release build, then frameworks, yarn and secure on the release build.
# Usage: scripts/test.sh [ctest args...]   e.g. scripts/test.sh -L unit
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's header says how long the run has taken so far (CI keeps the whole under an hour).
stage() { echo "== [$((SECONDS / 60)) min $((SECONDS % 60)) s] $*"; }
trap 'stage "end (exit $?)"' EXIT
bash scripts/setup.sh
bash scripts/setup-frameworks.sh

stage "format check (clang-format, .clang-format)"
files=$(git ls-files '*.cc' '*.h' | grep -v '^hadoop/proto/' || true)
clang-format --dry-run -Werror $files

stage "build (release)"
bash scripts/build.sh default
stage "clang-tidy (.clang-tidy; scripts/clang-tidy.sh)"
bash scripts/clang-tidy.sh
stage "build (ASan+UBSan)"
bash scripts/build.sh asan
stage "build (TSan)"
bash scripts/build.sh tsan
stage "fuzz every decoder for 20 s (clang, libFuzzer; scripts/fuzz.sh)"
bash scripts/fuzz.sh 20

export TONY_HOME="$(mktemp -d -t tony-test-home-XXXXXX)"
trap 'status=$?; rm -rf "$TONY_HOME"; stage "end (exit $status)"' EXIT

stage "unit and local-engine tests under ASan+UBSan"
(cd build-asan && ctest -L 'unit|local' --output-on-failure -j 2)

stage "unit and local-engine tests under TSan (tests/tsan.supp)"
bash scripts/tsan-tier.sh

cd build
if [ $# -gt 0 ]; then
  stage "tests (release build): ctest $*"
  ctest --output-on-failure "$@"
  exit
fi
# Every tier runs even when an earlier one failed, so that one run shows every failure.
rc=0
stage "unit and local-engine tests (release build), two at a time as under the sanitizers"
ctest -L 'unit|local' --output-on-failure -j 2 || rc=1
stage "frameworks, yarn and secure tests (release build), one at a time"
ctest -L 'frameworks|yarn|secure' --output-on-failure || rc=1
exit $rc
