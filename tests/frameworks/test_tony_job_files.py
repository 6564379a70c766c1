"""TonY's own kinds of job files and scripts, run unchanged by tony: a migrating user's files.

Written in these tests' own words after TonY's examples and its TestTonyE2E cases: the
mnist-pytorch example's job file (no parameter servers, security turned off, found as ./tony.xml
without --conf_file) and a script that joins the process group with TonY's INIT_METHOD, RANK and
WORLD; the mnist-tensorflow Keras example's shape (three workers, MultiWorkerMirroredStrategy
from TF_CONFIG, worker 0 the chief); TonY's single-node job (no task instances: the command runs
once, with --shell_env) that passes and fails. Each asserts what TonY's semantics give the
script and the job's result, with the real framework where TonY's example uses one. MXNet's
scheduler/server/worker job is tests/frameworks/test_mxnet.py; stages, timeouts and preprocess
jobs are tests/local/test_stages.py, test_group_timeouts.py and test_preprocess.py."""
import json
import os
import re

from fwutil import TF_PYTHON, output, require
from tonytest import SYSTEM_PYTHON, assert_nothing_left, job_id_from, tony_xml, write

# TonY's mnist-pytorch README job file, as its users copy it.
PYTORCH_JOB = {"tony.application.security.enabled": "false", "tony.ps.instances": "0",
               "tony.worker.instances": "2", "tony.application.framework": "pytorch",
               "tony.worker.memory": "512m"}

# The way TonY's mnist_distributed.py joins: INIT_METHOD, RANK and WORLD, nothing else.
PYTORCH_SCRIPT = r'''
import os
import torch
import torch.distributed as dist

init, rank, world = os.environ["INIT_METHOD"], int(os.environ["RANK"]), int(os.environ["WORLD"])
dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world)
t = torch.tensor([1.0, 2.0]) * (rank + 1)
dist.all_reduce(t)
print("rank %d/%d via %s: all_reduce %s" % (rank, world, init, t.tolist()), flush=True)
# A few steps of data-parallel SGD on y = 3x: averaged gradients keep the replicas equal.
w = torch.zeros(1, requires_grad=True)
x = torch.arange(1.0, 9.0)[rank::world]
for _ in range(50):
    loss = ((w * x - 3 * x) ** 2).mean()
    w.grad = None
    loss.backward()
    dist.all_reduce(w.grad)
    w.grad /= world
    with torch.no_grad():
        w -= 0.01 * w.grad
print("rank %d: w %.3f" % (rank, w.item()), flush=True)
'''


def test_tonys_pytorch_example_job_file_from_the_working_directory(tony, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    tony_xml(str(work / "tony.xml"), PYTORCH_JOB)
    write(str(work / "src" / "mnist_distributed.py"), PYTORCH_SCRIPT)
    r = tony.run("submit", "--executes", "mnist_distributed.py", "--python_binary_path",
                 SYSTEM_PYTHON, "--src_dir", "src", cwd=str(work), timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "using ./tony.xml as the job file" in r.stderr, r.stderr
    # TonY's security switch has no meaning here: one warning that says why, nothing unknown.
    assert "tony.application.security.enabled" in r.stderr and "unknown key" not in r.stderr
    status = tony.status(job_id_from(r.stdout))
    assert status["final_status"] == "SUCCEEDED", status
    worker0 = tony.task("worker", 0)
    weights = []
    for rank in (0, 1):
        text = output(tony, "worker", rank)
        # TonY's INIT_METHOD is worker 0's reserved address; RANK is the task index, WORLD the
        # tracked task count.
        assert (f"rank {rank}/2 via tcp://{worker0['host']}:{worker0['port']}: "
                "all_reduce [3.0, 6.0]") in text, text
        weights.append(float(re.search(rf"rank {rank}: w ([\d.]+)", text).group(1)))
    assert weights[0] == weights[1] and abs(weights[0] - 3.0) < 0.05, weights
    assert_nothing_left(tony.home)


# The Keras example's shape: three workers, no ps, the strategy built from TF_CONFIG.
KERAS_SCRIPT = r'''
import json, os
import numpy as np
import tensorflow as tf

config = json.loads(os.environ["TF_CONFIG"])
strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
rng = np.random.default_rng(0)
x = rng.normal(size=(240, 4)).astype("float32")
y = x @ np.array([[1.0], [-2.0], [0.5], [3.0]], dtype="float32")
history = model.fit(x, y, batch_size=24, epochs=4, verbose=0)
task = config["task"]
print("%s:%d replicas %d cluster %s loss first %.4f last %.4f checksum %.6f" % (
    task["type"], task["index"], strategy.num_replicas_in_sync,
    json.dumps(config["cluster"], sort_keys=True), history.history["loss"][0],
    history.history["loss"][-1], float(sum(np.sum(w) for w in model.get_weights()))),
    flush=True)
'''


def test_tonys_keras_example_shape_trains_three_workers_in_sync(tony, tmp_path):
    require(TF_PYTHON, "tensorflow")
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "tensorflow", "tony.ps.instances": "0",
        "tony.worker.instances": "3", "tony.worker.memory": "1g",
        "tony.execution.envs": "TF_CPP_MIN_LOG_LEVEL=2"})
    write(str(tmp_path / "src" / "mnist_keras_distributed.py"), KERAS_SCRIPT)
    r = tony.run("submit", "--executes", "mnist_keras_distributed.py", "--python_binary_path",
                 TF_PYTHON, "--src_dir", str(tmp_path / "src"), "--conf_file", conf, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    status = tony.status(job_id_from(r.stdout))
    # No chief role: worker 0 is the chief, and the job ends with all three.
    assert status["message"] == "all 3 tracked task(s) succeeded", status
    assert [t["chief"] for t in sorted(status["tasks"], key=lambda t: t["index"])] == \
        [True, False, False]
    addresses = [f"{t['host']}:{t['port']}" for t in
                 sorted(status["tasks"], key=lambda t: t["index"])]
    checksums = []
    for index in range(3):
        m = re.search(rf"worker:{index} replicas (\d+) cluster (.*) loss first ([\d.]+) "
                      r"last ([\d.]+) checksum (-?[\d.]+)", output(tony, "worker", index))
        assert m, output(tony, "worker", index)
        assert int(m.group(1)) == 3
        assert json.loads(m.group(2)) == {"worker": addresses}  # TonY's TF_CONFIG cluster
        assert float(m.group(4)) < float(m.group(3)) / 2  # it learned
        checksums.append(float(m.group(5)))
    assert max(checksums) - min(checksums) < 1e-4, checksums  # the replicas stayed equal
    assert_nothing_left(tony.home)


# TonY's testSingleNodeTrainingShouldPass / ShouldFail: no task instances; the command runs
# once, with the --shell_env it was given, and the job ends with its result.
CHECK_ENV = r'''
import os, sys
assert os.environ["ENV_CHECK"] == "ENV_CHECK", os.environ.get("ENV_CHECK")
print("single node: ENV_CHECK ok, JOB_NAME=%s" % os.environ["JOB_NAME"], flush=True)
sys.exit(int(os.environ.get("EXIT", "0")))
'''


def test_tonys_single_node_job_passes_and_fails_with_its_command(tony, tmp_path):
    conf = tony_xml(str(tmp_path / "tony.xml"), {"tony.am.memory": "256m"})
    write(str(tmp_path / "src" / "exit_0_check_env.py"), CHECK_ENV)
    base = ("submit", "--executes", "exit_0_check_env.py", "--python_binary_path", SYSTEM_PYTHON,
            "--src_dir", str(tmp_path / "src"), "--conf_file", conf,
            "--shell_env", "ENV_CHECK=ENV_CHECK")
    r = tony.run(*base, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    status = tony.status(job_id_from(r.stdout))
    assert [(t["role"], t["index"], t["state"]) for t in status["tasks"]] == [("am", 0, "SUCCEEDED")]
    assert "single node: ENV_CHECK ok, JOB_NAME=am" in output(tony, "am", 0)
    failed = tony.run(*base, "--shell_env", "EXIT=1", timeout=120)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    status = tony.status(job_id_from(failed.stdout))
    assert status["final_status"] == "FAILED"
    assert status["message"].startswith("task am:0 failed: exit 1"), status["message"]
    assert_nothing_left(tony.home)
