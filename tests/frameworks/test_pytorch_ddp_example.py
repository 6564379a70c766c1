"""The README's main job: examples/pytorch-ddp trains a real 2-worker DistributedDataParallel
model with Debian's python3-torch (gloo) under tony and reaches the accuracy the README states."""
import os
import re

from tonytest import SYSTEM_PYTHON, assert_nothing_left

EXAMPLE = os.path.join(os.path.dirname(__file__), "../../examples/pytorch-ddp")
README_ACCURACY = 0.95  # README: "reaches at least 95% test accuracy"


def test_pytorch_ddp_example_trains_to_the_readme_accuracy(tony):
    r = tony.run("submit", "--executes", "train.py", "--task_params", "--epochs 30",
                 "--python_binary_path", SYSTEM_PYTHON, "--src_dir", os.path.join(EXAMPLE, "src"),
                 "--conf_file", os.path.join(EXAMPLE, "tony.xml"), timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    finals = {}
    for index in (0, 1):
        out = open(os.path.join(tony.task("worker", index)["log_dir"], "stdout")).read()
        m = re.search(r"rank (\d)/2: final test loss ([\d.]+) accuracy ([\d.]+) replicas_in_sync (\w+)", out)
        assert m, out
        finals[int(m.group(1))] = (float(m.group(2)), float(m.group(3)), m.group(4))
    assert set(finals) == {0, 1}, "both ranks must report"
    for rank, (loss, accuracy, in_sync) in finals.items():
        assert accuracy >= README_ACCURACY, f"rank {rank} accuracy {accuracy}"
        assert in_sync == "True"
    # Learning happened: the loss fell well below chance level (ln 2 = 0.69).
    first = open(os.path.join(tony.task("worker", 0)["log_dir"], "stdout")).read().splitlines()[0]
    first_loss = float(re.search(r"test loss ([\d.]+)", first).group(1))
    assert finals[0][0] < first_loss and finals[0][0] < 0.2
    assert_nothing_left(tony.home)
