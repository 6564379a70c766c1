#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over tony's product sources, using build/compile_commands.json (the
# default preset exports it: build first). By default the folders that fit CI's budget (~2 min on
# 2 cores): common, config, history, runtime, executor and coordinator/core. The rest (client,
# the coordinator shell, engine, hadoop, cli) include gRPC or the Hadoop protos and take ~10 s of
# CPU per file; pass their files to check them. Tests, fuzz targets and generated code are out.
# Usage: scripts/clang-tidy.sh [file.cc ...]
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -f build/compile_commands.json ]]; then
  echo "build/compile_commands.json is missing: run scripts/build.sh default first" >&2
  exit 1
fi
if [[ $# -gt 0 ]]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files 'common/*.cc' 'config/*.cc' 'history/*.cc' 'runtime/*.cc' \
    'executor/*.cc' 'coordinator/core/*.cc')
fi
log=$(mktemp -t tony-tidy-XXXXXX.log)
status=0
# run-clang-tidy takes each argument as a regex over compile_commands.json's file names.
run-clang-tidy -quiet -p build -j "$(nproc)" "${files[@]/#/^$PWD/}" >"$log" 2>&1 || status=$?
sed -E 's/\x1b\[[0-9;]*m//g' "$log" | grep -E -A3 '(warning|error): ' | head -n 300 || true
if [[ $status -ne 0 ]]; then
  echo "clang-tidy found problems (${#files[@]} files; full log: $log)" >&2
  exit 1
fi
rm -f "$log"
echo "clang-tidy: ${#files[@]} files clean"
