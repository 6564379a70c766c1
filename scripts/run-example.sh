#!/usr/bin/env bash
# The main job: installs what is needed, builds tony, and runs a real 2-worker PyTorch
# DistributedDataParallel training (gloo) on the local engine, then prints the result.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh default
example=examples/pytorch-ddp
set +e
./build/cli/tony submit --executes train.py --task_params "--epochs 30" \
  --python_binary_path /usr/bin/python3 --src_dir "$example/src" --conf_file "$example/tony.xml"
rc=$?
set -e
job=$(./build/cli/tony status | tail -n 1 | awk '{print $1}')
echo
echo "model (from worker:0's output, tony logs $job --task worker:0):"
./build/cli/tony logs "$job" --task worker:0 --stream stdout | tail -n 2
exit $rc
