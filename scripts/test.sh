#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what is needed, checks formatting, builds
# tony three times (release, ASan+UBSan, TSan), fuzzes each decoder briefly (scripts/fuzz.sh),
# runs every CTest tier (unit and local under both sanitizer builds and the release build, then
# yarn, secure and frameworks on the release build) and clang-tidy over every product file
# (scripts/clang-tidy.sh --all, beside the last tiers: see start_bg).
# Usage: scripts/test.sh [ctest args...]   e.g. scripts/test.sh -L unit
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's header says how long the run has taken so far (CI keeps the whole under an hour).
stage() { echo "== [$((SECONDS / 60)) min $((SECONDS % 60)) s] $*"; }
trap 'stage "end (exit $?)"' EXIT
bash scripts/setup.sh

# Background jobs, each in its own session at nice 19 so that it gets only the CPU the foreground
# leaves: start_bg NAME CMD... starts one, finish_bg NAME waits for it, prints its output and
# duration and returns its exit status; the EXIT trap stops any still running (the whole session).
declare -A bg_pid bg_log bg_start
start_bg() {
  local name=$1
  shift
  stage "$name starts in the background (nice 19)"
  bg_log[$name]=$(mktemp -t "tony-test-bg-XXXXXX.log")
  bg_start[$name]=$SECONDS
  setsid nice -n 19 "$@" >"${bg_log[$name]}" 2>&1 &
  bg_pid[$name]=$!
}
finish_bg() {
  local name=$1 status=0
  stage "$name (started $((SECONDS - bg_start[$name])) s ago in the background): waiting"
  wait "${bg_pid[$name]}" || status=$?
  unset "bg_pid[$name]"
  cat "${bg_log[$name]}"
  rm -f "${bg_log[$name]}"
  echo "$name: exit $status after $((SECONDS - bg_start[$name])) s in the background"
  return "$status"
}
stop_bg() {
  local pid
  for pid in "${bg_pid[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
}
trap 'status=$?; stop_bg; stage "end (exit $status)"' EXIT

# The frameworks' environments: the WebHDFS client now (the secure tier's tasks use it), the rest
# in the background. On a fresh machine those take ~15 min, mostly CPU (horovod's build from
# source ~10 min on 2 cores, wheels unpacked and compiled), and only the frameworks tier needs
# them: beside the builds they get little, beside the yarn and secure tiers (which leave most of
# the CPU idle, waiting on JVMs and jobs' timers) the rest, and the frameworks tier runs last,
# after they were waited for. On a machine that has them it is a quick check. A failed install
# fails the run.
bash scripts/setup-frameworks.sh webhdfs
start_bg "the frameworks' environments" bash scripts/setup-frameworks.sh tf jax mxnet hvd

# The test harness's Java parts (the minicluster launcher, TonY's history reader) resolve their
# jars with Maven: on a fresh machine that is a download of ~200 MB, started now beside the builds
# instead of inside the first test that needs it.
jars="the test harness's jars (Maven)"
start_bg "$jars" bash -c 'tests/minicluster/start.sh --build-only &&
  python3 -c "import sys; sys.path.insert(0, \"tests/lib\"); import tony_events; tony_events.reader_classpath()"'

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
# it the files that include gRPC or the Hadoop protos. It runs in the background beside the yarn,
# secure and frameworks tiers: it gets only the CPU they leave, so it adds no wall time (a serial
# stage checked six folders in ~2 min). A finding fails the run.
tidy="clang-tidy over every product file"

export TONY_HOME="$(mktemp -d -t tony-test-home-XXXXXX)"
trap 'status=$?; stop_bg; rm -rf "$TONY_HOME"; stage "end (exit $status)"' EXIT

finish_bg "$jars"
stage "unit and local-engine tests under ASan+UBSan (tests/lsan.supp)"
(cd build-asan && LSAN_OPTIONS="suppressions=$PWD/../tests/lsan.supp" \
  ctest -L 'unit|local' --output-on-failure -j 2)

stage "unit and local-engine tests under TSan (tests/tsan.supp)"
bash scripts/tsan-tier.sh

# Every tier runs even when an earlier one failed, so that one run shows every failure.
rc=0
if [ $# -gt 0 ]; then
  finish_bg "the frameworks' environments" || rc=1
  start_bg "$tidy" bash scripts/clang-tidy.sh --all
  stage "tests (release build): ctest $*"
  (cd build && ctest --output-on-failure "$@") || rc=1
  finish_bg "$tidy" || rc=1
  exit $rc
fi
stage "unit and local-engine tests (release build), two at a time as under the sanitizers"
(cd build && ctest -L 'unit|local|web' --output-on-failure -j 2) || rc=1
start_bg "$tidy" bash scripts/clang-tidy.sh --all
stage "yarn and secure tests (release build), two at a time (tests/CMakeLists.txt: COST)"
(cd build && ctest -L 'yarn|secure' --output-on-failure -j 2) || rc=1
if finish_bg "the frameworks' environments"; then
  stage "frameworks tests (release build), one at a time"
  (cd build && ctest -L frameworks --output-on-failure) || rc=1
else
  echo "the frameworks tier did not run: its environments failed to install (above)" >&2
  rc=1
fi
finish_bg "$tidy" || rc=1
exit $rc
