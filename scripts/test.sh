#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what is needed, checks formatting, builds
# tony three times (release, ASan+UBSan, TSan), fuzzes each decoder briefly (scripts/fuzz.sh),
# runs every CTest tier (unit and local under both sanitizer builds and the release build, then
# yarn, secure and frameworks on the release build) and clang-tidy over every product file
# (scripts/clang-tidy.sh --all, beside the last tiers: see start_tidy).
# Usage: scripts/test.sh [ctest args...]   e.g. scripts/test.sh -L unit
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's header says how long the run has taken so far (CI keeps the whole under an hour).
stage() { echo "== [$((SECONDS / 60)) min $((SECONDS % 60)) s] $*"; }
trap 'stage "end (exit $?)"' EXIT
bash scripts/setup.sh
# The frameworks' environments: the WebHDFS client now (the secure tier's tasks use it), the rest
# in the background (below).
bash scripts/setup-frameworks.sh webhdfs

# On a fresh machine the other environments take ~15 min, mostly CPU (horovod's build from
# source ~10 min on 2 cores, wheels unpacked and compiled); only the frameworks tier needs them.
# So they install in the background at nice 19 from here on: beside the builds they get little,
# beside the yarn and secure tiers (which leave most of the CPU idle, waiting on JVMs and jobs'
# timers) the rest, and the frameworks tier runs last, after finish_frameworks has waited for
# them. On a machine that has them it is a quick check. A failed install fails the run.
frameworks_pid=""
frameworks_log=$(mktemp -t tony-test-frameworks-XXXXXX.log)
frameworks_start=$SECONDS
setsid nice -n 19 bash scripts/setup-frameworks.sh tf jax mxnet hvd >"$frameworks_log" 2>&1 &
frameworks_pid=$!
finish_frameworks() {
  stage "frameworks' environments (started $((SECONDS - frameworks_start)) s ago): waiting"
  local status=0
  wait "$frameworks_pid" || status=$?
  frameworks_pid=""
  cat "$frameworks_log"
  echo "setup-frameworks: exit $status after $((SECONDS - frameworks_start)) s in the background"
  return "$status"
}
trap 'status=$?; [ -z "$frameworks_pid" ] || kill -- "-$frameworks_pid" 2>/dev/null || true
      stage "end (exit $status)"' EXIT

stage "format check (clang-format, .clang-format)"
files=$(git ls-files '*.cc' '*.h' | grep -v '^hadoop/proto/' || true)
clang-format --dry-run -Werror $files

stage "build (release)"
bash scripts/build.sh default
stage "build (ASan+UBSan)"
bash scripts/build.sh asan
stage "build (TSan)"
bash scripts/build.sh tsan
stage "fuzz every decoder for 20 s (clang, libFuzzer; scripts/fuzz.sh)"
bash scripts/fuzz.sh 20

# clang-tidy over every product file (scripts/clang-tidy.sh --all) takes ~12 min of CPU, most of
# it the files that include gRPC or the Hadoop protos. It runs in the background at nice 19
# beside the frameworks, yarn and secure tiers, which mostly wait on JVMs and on jobs' timers: it
# gets only the CPU they leave, so it adds no wall time (a serial stage checked six folders in
# ~2 min). It runs in its own session so that the EXIT trap can stop all of it; finish_tidy waits
# for it, prints its findings and its duration, and fails the run if it found anything.
tidy_pid=""
start_tidy() {
  stage "clang-tidy over every product file starts in the background (nice 19)"
  tidy_log=$(mktemp -t tony-test-tidy-XXXXXX.log)
  tidy_start=$SECONDS
  setsid nice -n 19 bash scripts/clang-tidy.sh --all >"$tidy_log" 2>&1 &
  tidy_pid=$!
}
finish_tidy() {
  stage "clang-tidy over every product file (started $((SECONDS - tidy_start)) s ago): waiting"
  local status=0
  wait "$tidy_pid" || status=$?
  tidy_pid=""
  cat "$tidy_log"
  rm -f "$tidy_log"
  echo "clang-tidy --all: exit $status after $((SECONDS - tidy_start)) s beside the tests"
  return "$status"
}

export TONY_HOME="$(mktemp -d -t tony-test-home-XXXXXX)"
trap 'status=$?; [ -z "$tidy_pid" ] || kill -- "-$tidy_pid" 2>/dev/null || true
      [ -z "$frameworks_pid" ] || kill -- "-$frameworks_pid" 2>/dev/null || true
      rm -rf "$TONY_HOME"; stage "end (exit $status)"' EXIT

stage "unit and local-engine tests under ASan+UBSan"
(cd build-asan && ctest -L 'unit|local' --output-on-failure -j 2)

stage "unit and local-engine tests under TSan (tests/tsan.supp)"
bash scripts/tsan-tier.sh

# Every tier runs even when an earlier one failed, so that one run shows every failure.
rc=0
if [ $# -gt 0 ]; then
  finish_frameworks || rc=1
  start_tidy
  stage "tests (release build): ctest $*"
  (cd build && ctest --output-on-failure "$@") || rc=1
  finish_tidy || rc=1
  exit $rc
fi
stage "unit and local-engine tests (release build), two at a time as under the sanitizers"
(cd build && ctest -L 'unit|local' --output-on-failure -j 2) || rc=1
start_tidy
stage "yarn and secure tests (release build), one at a time"
(cd build && ctest -L 'yarn|secure' --output-on-failure) || rc=1
if finish_frameworks; then
  stage "frameworks tests (release build), one at a time"
  (cd build && ctest -L frameworks --output-on-failure) || rc=1
else
  echo "the frameworks tier did not run: its environments failed to install (above)" >&2
  rc=1
fi
finish_tidy || rc=1
exit $rc
