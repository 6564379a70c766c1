#!/usr/bin/env bash
# The unit and local-engine tiers on the ThreadSanitizer build (scripts/build.sh tsan). Every TSan
# report of every process the tests start (the CLI, the coordinator, the executors, the unit test
# binaries) is written to a file of its own; the tier fails if any was written, and prints them.
# tests/tsan.supp lists what is suppressed and why (only reports inside libraries Debian ships
# uninstrumented).
# Usage: scripts/tsan-tier.sh [ctest args...]   (default: -L 'unit|local' -j 2)
set -euo pipefail
cd "$(dirname "$0")/.."
reports=$(mktemp -d -t tony-tsan-XXXXXX)
export TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp log_path=$reports/report second_deadlock_stack=1 history_size=4"
[ $# -gt 0 ] || set -- -L 'unit|local' -j 2
rc=0
# Without address-space randomisation: TSan's runtime (GCC 12's) refuses to start under some
# kernels' larger mmap randomisation ("unexpected memory mapping"); setarch -R is inherited by
# every process the tests start.
(cd build-tsan && setarch "$(uname -m)" -R ctest --output-on-failure "$@") || rc=1
shopt -s nullglob
found=("$reports"/report.*)
if [ ${#found[@]} -gt 0 ]; then
  for f in "${found[@]}"; do
    echo "---- ThreadSanitizer report ($f)"
    head -c 20000 "$f"
  done
  echo "ThreadSanitizer: ${#found[@]} process(es) reported; see above" >&2
  rc=1
fi
rm -rf "$reports"
exit $rc
