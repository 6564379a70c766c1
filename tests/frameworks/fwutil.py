"""Helpers for the real-framework tests: where each framework's interpreter is, and reading what a
task printed.

scripts/setup-frameworks.sh installs each framework from PyPI into its own virtualenv (their
numpy pins conflict with each other and with Debian's python3-torch); TONY_TF_PYTHON,
TONY_JAX_PYTHON, TONY_MXNET_PYTHON and TONY_HOROVOD_PYTHON override where the tests look for them."""
import os
import re
import subprocess

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
TF_PYTHON = os.environ.get("TONY_TF_PYTHON", "/opt/tony-tf/bin/python")
JAX_PYTHON = os.environ.get("TONY_JAX_PYTHON", "/opt/tony-jax/bin/python")
MXNET_PYTHON = os.environ.get("TONY_MXNET_PYTHON", "/opt/tony-mxnet/bin/python")
HOROVOD_PYTHON = os.environ.get("TONY_HOROVOD_PYTHON", "/opt/tony-hvd/bin/python")


def example(name):
    return os.path.join(REPO, "examples", name)


def require(python, module):
    """Fails (never skips) when the framework is missing: the setup script must install it."""
    ok = os.access(python, os.X_OK) and subprocess.run(
        [python, "-c", f"import {module}"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, timeout=120).returncode == 0
    assert ok, f"{python} cannot import {module}: run scripts/setup-frameworks.sh"
    return python


def output(tony, role, index, stream="stdout"):
    with open(os.path.join(tony.task(role, index)["log_dir"], stream)) as f:
        return f.read()


def port_held(tony, role, index):
    """Whether the task's executor kept its port bound with SO_REUSEPORT while the framework
    bound it too (README "What a task sees")."""
    return "bound with SO_REUSEPORT" in output(tony, role, index, "executor.log")


def submit(tony, example_dir, script, python, task_params="", conf=(), timeout=300):
    """Runs `tony submit` on an example and returns the finished job's status; fails with the
    client's output and each task's stderr tail when the job does not succeed."""
    args = ["submit", "--executes", script, "--python_binary_path", python,
            "--src_dir", os.path.join(example_dir, "src"),
            "--conf_file", os.path.join(example_dir, "tony.xml")]
    if task_params:
        args += ["--task_params", task_params]
    for c in conf:
        args += ["--conf", c]
    r = tony.run(*args, timeout=timeout)
    if r.returncode != 0:
        tails = []
        for t in tony.status()["tasks"] if tony.jobs() else []:
            try:
                with open(os.path.join(t["log_dir"], "stderr")) as f:
                    tails.append(f"--- {t['role']}:{t['index']} stderr\n" + f.read()[-3000:])
            except OSError:
                pass
        raise AssertionError(r.stdout[-3000:] + r.stderr[-3000:] + "\n".join(tails))
    return tony.status()


def floats(pattern, text):
    """Every match of `pattern` in `text`, its groups as floats."""
    return [tuple(float(g) for g in m.groups()) for m in re.finditer(pattern, text)]


# A TensorFlow worker of a job with the TensorBoard sidecar: it writes a scalar summary under
# TB_TEST_LOG_DIR and waits until the sidecar's TensorBoard (its address from CLUSTER_SPEC) lists
# the run. tests/frameworks/test_tensorboard.py and tests/yarn/test_yarn_frameworks.py run it.
SIDECAR_TB_WORKER = r"""
import json, os, time, urllib.request
import tensorflow as tf

# With the sidecar, only the tensorboard task gets TB_PORT (TonY's
# testAttachedTensorboardShouldPass); its address in the cluster spec is TensorBoard's.
assert "TB_PORT" not in os.environ, os.environ.get("TB_PORT")
address = json.loads(os.environ["CLUSTER_SPEC"])["tensorboard"][0]
assert "tensorboard" not in json.loads(os.environ["TF_CONFIG"])["cluster"]
logdir = os.environ["TB_TEST_LOG_DIR"]
with tf.summary.create_file_writer(os.path.join(logdir, "run1")).as_default():
    for step in range(3):
        tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
url = f"http://{address}/data/runs"
deadline = time.monotonic() + 120
while True:
    try:
        runs = json.load(urllib.request.urlopen(url, timeout=5))
    except OSError as e:
        runs = repr(e)
    if "run1" in runs:
        break
    assert time.monotonic() < deadline, f"TensorBoard at {url} never listed run1: {runs}"
    time.sleep(0.5)
print(f"tensorboard lists {runs}", flush=True)
"""
