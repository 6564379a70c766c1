#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over tony's product sources. Tests, benchmarks, fuzz targets and
# generated code are out. Its compile database is build-tidy/'s: the presets build in unity batches
# (several .cc files as one translation unit), so their databases name the batches; build-tidy is
# configured without them and only its generated sources (protoc's) are built.
#   scripts/clang-tidy.sh            the quick folders (~2 min on 2 cores): common, config,
#                                    history, runtime, executor and coordinator/core
#   scripts/clang-tidy.sh --all      every product .cc: every tracked .cc outside tests/, bench/
#                                    and fuzz/, so a new folder is checked the day it lands. The
#                                    rest (cli, client, the coordinator shell, engine, hadoop, rpc)
#                                    include gRPC or the Hadoop protos, ~10 s of CPU a file; ~12 min
#                                    of CPU in all. CI runs this one, beside its slowest tests
#                                    (scripts/test.sh).
#   scripts/clang-tidy.sh FILE.cc... those files
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-tidy -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=OFF >/dev/null
cmake --build build-tidy --target tony_rpc_generated tony_hadoop_generated >/dev/null
if [[ "${1:-}" == "--all" ]]; then
  mapfile -t files < <(git ls-files '*.cc' ':!:tests/' ':!:bench/' ':!:fuzz/')
elif [[ $# -gt 0 ]]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files 'common/*.cc' 'config/*.cc' 'history/*.cc' 'runtime/*.cc' \
    'executor/*.cc' 'coordinator/core/*.cc')
fi
log=$(mktemp -t tony-tidy-XXXXXX.log)
status=0
# run-clang-tidy takes each argument as a regex over compile_commands.json's file names.
run-clang-tidy -quiet -p build-tidy -j "$(nproc)" "${files[@]/#/^$PWD/}" >"$log" 2>&1 || status=$?
sed -E 's/\x1b\[[0-9;]*m//g' "$log" | grep -E -A3 '(warning|error): ' | head -n 300 || true
if [[ $status -ne 0 ]]; then
  echo "clang-tidy found problems (${#files[@]} files; full log: $log)" >&2
  exit 1
fi
rm -f "$log"
echo "clang-tidy: ${#files[@]} files clean"
