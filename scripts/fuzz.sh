#!/usr/bin/env bash
# Builds the fuzz targets (fuzz/, one per decoder of untrusted bytes) with clang's libFuzzer,
# ASan and UBSan in build-fuzz/, and runs each for a while from its seed corpus and regression
# inputs. What a run finds goes to build-fuzz/fuzz-out/<target>/: new corpus entries, and a
# crash-*/leak-*/timeout-*/oom-* input for each failure (fix the decoder, then add the input to
# fuzz/regressions/<target>/, which every build replays as a unit test).
# Usage: scripts/fuzz.sh [seconds per target, default 30] [target ...]   e.g. scripts/fuzz.sh 300 credentials
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in fuzz/*_fuzz.cc; do
    t=${f#fuzz/}
    t=${t%_fuzz.cc}
    # jhist is run only when named: it found that Debian's libavro 1.11, which portal/jhist.cc
    # reads TonY's .jhist files with, trusts sizes from a corrupt file (realloc of -62 as size_t,
    # allocations of tens of GB) and leaks on its error paths. That is an open defect of
    # `tony portal --history` (README "The portal"), not fixed yet; its seeds still replay as the unit
    # test fuzz.jhist.
    [ "$t" = jhist ] && continue
    targets+=("$t")
  done
fi

cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_UNITY_BUILD=ON -DTONY_FUZZ=ON -DTONY_WERROR=OFF >/dev/null
log=$(mktemp -t tony-fuzz-build-XXXXXX.log)
if ! cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]/%/_fuzz}" >"$log" 2>&1; then
  grep -E 'error|FAILED|undefined reference' "$log" | head -n 40 || true
  echo "fuzz build failed; full log: $log" >&2
  exit 1
fi
rm -f "$log"

# One target: its result ("ok" or "FAILED") goes to build-fuzz/fuzz-out/<target>/result.
fuzz_one() {
  local t=$1 out=build-fuzz/fuzz-out/$1
  mkdir -p "$out/corpus"
  rm -f "$out/result"
  local inputs=("$out/corpus" "fuzz/corpus/$t")
  [ -d "fuzz/regressions/$t" ] && inputs+=("fuzz/regressions/$t")
  # New inputs go to the first directory only: the checked-in seeds stay as they are.
  if "build-fuzz/fuzz/${t}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$out/" -print_final_stats=1 "${inputs[@]}" >"$out/log" 2>&1; then
    echo ok >"$out/result"
  else
    echo FAILED >"$out/result"
  fi
}

# As many targets at once as there are cores (each fuzzer runs on one).
echo "== fuzz ${#targets[@]} targets for ${seconds}s each, $(nproc) at a time"
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  fuzz_one "$t" &
done
wait

failed=()
for t in "${targets[@]}"; do
  out=build-fuzz/fuzz-out/$t
  if [ "$(cat "$out/result" 2>/dev/null)" != ok ]; then
    grep -E '^==[0-9]+==ERROR|SUMMARY|FUZZ_CHECK|Test unit written|runtime error' "$out/log" | head -n 20 || true
    echo "fuzz $t: FAILED (log: $out/log)" >&2
    failed+=("$t")
  else
    echo "fuzz $t: $(grep -E '^stat::number_of_executed_units|^Done' "$out/log" | tr '\n' ' ' || true)"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${seconds}s each without a failure"
