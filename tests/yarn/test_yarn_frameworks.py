"""Every framework's example, unchanged, on a real YARN (MiniYARNCluster with 2 NodeManagers of
4096 MB each, and MiniDFS): TensorFlow MultiWorkerMirroredStrategy and ParameterServerStrategy,
JAX, MXNet (ps-lite) and Horovod (with tony's driver task), each checked as the frameworks tier
checks it on the local engine (loss falls, the all-reduced value is right), with its tasks spread
over both NodeManagers, the application FINISHED/SUCCEEDED in the ResourceManager's own REST view
and nothing left running. Plus a job that ships its interpreter as a --python_venv zip, and the
per-framework refusals before anything is submitted.

The frameworks come from their virtualenvs under /opt (scripts/setup-frameworks.sh) through an
absolute --python_binary_path: the minicluster's NodeManagers run on this machine, so their
containers reach /opt as a cluster's nodes reach a shared install. Shipping the venvs instead
(1.3 GB for TensorFlow, 620 MB for JAX, zipped, staged to HDFS and unzipped in every container)
would take minutes per job; test_shipped_venv_runs_the_pytorch_example ships a small one.

Memory: the NodeManagers do not enforce it (pmem/vmem checks are off in tests/minicluster), so
tony.<role>.memory only decides where the scheduler puts containers. Each job asks for more than
its tasks use (peak resident size per process, sampled during a run of this file: TensorFlow
0.47-0.54 GB, JAX 0.17-0.23 GB, Horovod with torch 0.24 GB, MXNet 0.11-0.15 GB) and for amounts
that cannot all fit on one NodeManager: two-task jobs 2560 MB per task (one per node), four-task
jobs 1536 MB (at most two per node, all four next to the 256 MB AM within 2 x 4096 MB). The whole
file takes about 2 minutes on 2 cores, 20 s of it starting the minicluster."""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import urllib.parse
import urllib.request

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "frameworks"))
from fwutil import (HOROVOD_PYTHON, JAX_PYTHON, MXNET_PYTHON, SIDECAR_TB_WORKER,  # noqa: E402
                    TF_PYTHON, example, floats, require)
from tonytest import SYSTEM_PYTHON, Tony, assert_nothing_left, tony_xml, write  # noqa: E402
from minicluster import site_property  # noqa: E402

AM = "tony.am.memory=256m"
TWO_PER_CLUSTER = "2560m"   # > 4096 / 2: one such task per NodeManager
FOUR_PER_CLUSTER = "1536m"  # > 4096 / 3 and <= (4096 - 256) / 2: two per NodeManager


def rm_app(conf_dir, app_id):
    """The ResourceManager's own view of the application (REST), independent of tony's."""
    web = site_property(conf_dir, "yarn-site.xml", "yarn.resourcemanager.webapp.address")
    req = urllib.request.Request(f"http://{web}/ws/v1/cluster/apps/{app_id}",
                                 headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)["app"]


class YarnJob:
    """A finished `tony submit` on YARN: its application id, task table and task output."""

    def __init__(self, tony, app_id, result):
        self.tony, self.app_id, self.result = tony, app_id, result
        self.tasks = {(t["role"], t["index"]): t for t in tony.status(app_id)["tasks"]}
        self.message = tony.status(app_id).get("message", "")

    def output(self, role, index, stream="stdout"):
        """What the task wrote, read by `tony logs` from its NodeManager's web service."""
        r = self.tony.run("logs", self.app_id, "--task", f"{role}:{index}", "--stream", stream)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout

    def node_managers(self, roles=None):
        """The NodeManagers (web addresses) the tasks of `roles` (default all) ran on."""
        return {urllib.parse.urlparse(t["log_url"]).netloc for (role, _), t in self.tasks.items()
                if roles is None or role in roles}


def submit(minicluster, tmp_path, src, script, python, conf=(), task_params="", conf_file=None,
           extra=()):
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = minicluster
    args = ["submit", "--executes", script, "--python_binary_path", python, "--src_dir", src,
            "--conf", AM]
    if conf_file:
        args += ["--conf_file", conf_file]
    if task_params:
        args += ["--task_params", task_params]
    for c in conf:
        args += ["--conf", c]
    r = tony.run(*args, *extra, timeout=600)
    out = r.stdout + r.stderr
    m = re.search(r"application (application_\d+_\d+) submitted", r.stdout)
    assert m, out
    app_id = m.group(1)
    if r.returncode != 0:
        tails = []
        for t in tony.status(app_id)["tasks"]:
            logs = tony.run("logs", app_id, "--task", f"{t['role']}:{t['index']}",
                            "--stream", "all")
            tails.append(logs.stdout[-3000:])
        raise AssertionError(out[-4000:] + "\n" + "\n".join(tails))
    assert f"job {app_id} SUCCEEDED" in r.stdout, out
    job = YarnJob(tony, app_id, r)
    app = rm_app(minicluster, app_id)
    assert app["state"] == "FINISHED" and app["finalStatus"] == "SUCCEEDED", app
    # Every task ran in a container of this application.
    suffix = app_id[len("application_"):]
    for t in job.tasks.values():
        assert t["container_id"].startswith("container_") and suffix in t["container_id"], t
    # Containers' processes carry the application id in their environment and working directory.
    assert_nothing_left(app_id, timeout=30)
    return job


def example_submit(minicluster, tmp_path, name, script, python, **kw):
    return submit(minicluster, tmp_path, os.path.join(example(name), "src"), script, python,
                  conf_file=os.path.join(example(name), "tony.xml"), **kw)


# --- TensorFlow --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def reviews(tmp_path_factory):
    """The movie-review data set, generated as the example's README says and put in data/ of a
    copy of each TensorFlow example's src/, so that it travels with the job (HDFS staging) and
    every container reads it from its working directory (the scripts' default --data-dir)."""
    data = tmp_path_factory.mktemp("movie-reviews")
    subprocess.run([SYSTEM_PYTHON, os.path.join(example("tensorflow-mwms"), "src", "make_data.py"),
                    "--out", str(data)], check=True, stdout=subprocess.DEVNULL)
    srcs = {}
    for name in ("tensorflow-mwms", "tensorflow-ps"):
        src = tmp_path_factory.mktemp(name) / "src"
        shutil.copytree(os.path.join(example(name), "src"), src)
        shutil.copytree(data, src / "data")
        srcs[name] = str(src)
    return srcs


def assert_learned(text, who):
    """As tests/frameworks/test_tensorflow.py: the loss falls over 3 epochs and the model beats
    chance on the test set by far (about 0.85 is typical, 0.9 the ceiling)."""
    epochs = floats(who + r": epoch \d+ loss ([\d.]+) accuracy ([\d.]+)", text)
    assert len(epochs) == 3, text
    assert epochs[-1][0] < epochs[0][0] - 0.1, f"training loss did not fall: {epochs}"
    final = floats(who + r": final test loss ([\d.]+) accuracy ([\d.]+)", text)
    assert final, text
    test_loss, test_accuracy = final[0]
    assert test_loss < 0.50 and test_accuracy >= 0.80, text


def test_tensorflow_multi_worker_mirrored_two_workers_on_two_node_managers(minicluster, tmp_path,
                                                                           reviews):
    require(TF_PYTHON, "tensorflow")
    job = submit(minicluster, tmp_path, reviews["tensorflow-mwms"], "train.py", TF_PYTHON,
                 conf_file=os.path.join(example("tensorflow-mwms"), "tony.xml"),
                 conf=[f"tony.worker.memory={TWO_PER_CLUSTER}"])
    assert len(job.node_managers()) == 2, job.tasks
    checksums = []
    for index in (0, 1):
        text = job.output("worker", index)
        assert f"worker {index}: 2 replicas in sync" in text, text
        assert_learned(text, f"worker {index}")
        checksums.append(floats(r"weights_checksum (-?[\d.]+)", text)[0][0])
    # All-reduced gradients across the two containers keep the replicas identical.
    assert abs(checksums[0] - checksums[1]) < 1e-3, checksums


def test_tensorflow_parameter_server_chief_ends_the_job(minicluster, tmp_path, reviews):
    require(TF_PYTHON, "tensorflow")
    job = submit(minicluster, tmp_path, reviews["tensorflow-ps"], "train.py", TF_PYTHON,
                 conf_file=os.path.join(example("tensorflow-ps"), "tony.xml"),
                 conf=[f"tony.{role}.memory={FOUR_PER_CLUSTER}" for role in
                       ("chief", "ps", "worker")])
    assert len(job.node_managers()) == 2, job.tasks
    assert "chief task chief:0 succeeded" in job.message, job.message
    text = job.output("chief", 0)
    assert_learned(text, "chief")
    assert "variables_on /job:ps/replica:0/task:0" in text, text
    steps = floats(r"steps_by_worker \{0: (\d+), 1: (\d+)\}", text)
    assert steps and min(steps[0]) >= 10, text
    # The ps and the workers serve forever; tony stopped their containers when the chief ended.
    for role, index in (("ps", 0), ("worker", 0), ("worker", 1)):
        assert "serving" in job.output(role, index)
        task = job.tasks[(role, index)]
        assert task["state"] == "STOPPED" and "stopped" in task["diagnostics"], task
    # Only the chief got TB_PORT; the job's status names its TensorBoard URL on the chief's node.
    chief = job.tasks[("chief", 0)]
    url = job.tony.status(job.app_id)["tensorboard_url"]
    assert url.startswith(f"http://{chief['host']}:") and url != f"http://{chief['host']}:" \
        f"{chief['port']}", url


def test_sidecar_tensorboard_serves_the_log_dir_from_its_container(minicluster, tmp_path):
    """As tests/frameworks/test_tensorboard.py, in a YARN container: the worker reaches the
    sidecar's TensorBoard at its NodeManager host and task port, which the status shows."""
    require(TF_PYTHON, "tensorboard")
    src = tmp_path / "src"
    src.mkdir()
    (src / "worker.py").write_text(SIDECAR_TB_WORKER)
    logdir = tmp_path / "tb"
    logdir.mkdir()
    job = submit(minicluster, tmp_path, str(src), "worker.py", TF_PYTHON,
                 conf=["tony.application.framework=tensorflow", "tony.worker.instances=1",
                       "tony.worker.memory=1g", "tony.tensorboard.memory=1g"],
                 extra=("--sidecar_tensorboard_log_dir", str(logdir),
                        "--shell_env", f"TB_TEST_LOG_DIR={logdir}"))
    assert "tensorboard lists" in job.output("worker", 0)
    tb = job.tasks[("tensorboard", 0)]
    url = f"http://{tb['host']}:{tb['port']}"
    assert job.tony.status(job.app_id)["tensorboard_url"] == url
    assert f"TensorBoard: {url}" in job.result.stdout, job.result.stdout
    # Not waited for; stopped (its container killed on the coordinator's request) at the end.
    assert not tb["tracked"] and tb["state"] in ("STOPPED", "SUCCEEDED"), tb
    assert "coordinator's request" in tb["diagnostics"] or "stopped" in tb["diagnostics"], tb


# --- JAX ---------------------------------------------------------------------------------------

def test_jax_two_processes_all_reduce_and_train_across_node_managers(minicluster, tmp_path):
    require(JAX_PYTHON, "jax")
    job = example_submit(minicluster, tmp_path, "jax", "collective.py", JAX_PYTHON,
                         conf=[f"tony.worker.memory={TWO_PER_CLUSTER}"])
    assert len(job.node_managers()) == 2, job.tasks
    coordinator = job.tasks[("worker", 0)]
    for pid in (0, 1):
        text = job.output("worker", pid)
        # jax found its coordinator (process 0's container, on the port its executor reserved),
        # the process count and its id from the environment tony set in each container.
        m = re.search(rf"process {pid}/2: coordinator (\S+) devices (\d+)", text)
        assert m and m.group(1) == f"{coordinator['host']}:{coordinator['port']}", text
        assert int(m.group(2)) == 2, text
        assert f"process {pid}/2: psum [3.0, 6.0, 9.0, 12.0]" in text, text
        trained = floats(rf"process {pid}/2: loss first ([\d.]+) last ([\d.]+) .* "
                         r"max_error ([\d.]+) in_sync True", text)
        assert trained, text
        first, last, max_error = trained[0]
        assert last < first / 100 and max_error < 0.05, text


# A script written for Kubeflow Training Operator v1's JAXJob, which sets COORDINATOR_ADDRESS (a
# host), COORDINATOR_PORT, NUM_PROCESSES and PROCESS_ID: tony's jax runtime sets those too. The
# script drops JAX_COORDINATOR_ADDRESS first, so jax can only find its peers through them.
KUBEFLOW_JAX = """
import os
os.environ.pop("JAX_COORDINATOR_ADDRESS", None)
import jax
import numpy as np
from jax.experimental import multihost_utils
address = os.environ["COORDINATOR_ADDRESS"] + ":" + os.environ["COORDINATOR_PORT"]
jax.distributed.initialize(coordinator_address=address,
                           num_processes=int(os.environ["NUM_PROCESSES"]),
                           process_id=int(os.environ["PROCESS_ID"]),
                           cluster_detection_method="deactivate")
every = multihost_utils.process_allgather(np.array([10.0 * (jax.process_index() + 1)]))
print(f"kubeflow-style process {jax.process_index()}/{jax.process_count()} at {address}: "
      f"gathered {every.ravel().tolist()}", flush=True)
jax.distributed.shutdown()
"""


def test_jax_script_written_for_kubeflow_jaxjob_finds_its_peers(minicluster, tmp_path):
    require(JAX_PYTHON, "jax")
    src = tmp_path / "src"
    write(str(src / "kubeflow_jax.py"), KUBEFLOW_JAX)
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "jax", "tony.worker.instances": "2",
        "tony.worker.memory": TWO_PER_CLUSTER,
        "tony.execution.envs": "JAX_PLATFORMS=cpu,OMP_NUM_THREADS=1"})
    job = submit(minicluster, tmp_path, str(src), "kubeflow_jax.py", JAX_PYTHON, conf_file=xml)
    assert len(job.node_managers()) == 2, job.tasks
    coordinator = job.tasks[("worker", 0)]
    for pid in (0, 1):
        text = job.output("worker", pid)
        assert (f"kubeflow-style process {pid}/2 at {coordinator['host']}:{coordinator['port']}: "
                "gathered [10.0, 20.0]") in text, text


# --- MXNet -------------------------------------------------------------------------------------

def test_mxnet_scheduler_server_and_two_workers_train(minicluster, tmp_path):
    require(MXNET_PYTHON, "mxnet")
    job = example_submit(minicluster, tmp_path, "mxnet", "train.py", MXNET_PYTHON,
                         conf=[f"tony.{role}.memory={FOUR_PER_CLUSTER}" for role in
                               ("scheduler", "server", "worker")])
    assert len(job.node_managers()) == 2, job.tasks
    for key, task in job.tasks.items():
        assert task["state"] == "SUCCEEDED" and task["exit_code"] == 0, (key, task)
    scheduler = job.tasks[("scheduler", 0)]
    scheduler_ip = socket.gethostbyname(scheduler["host"])
    checksums, ranks = set(), set()
    for index in (0, 1):
        text = job.output("worker", index)
        m = re.search(r"worker (\d)/2: DMLC_ROLE worker scheduler (\S+)", text)
        assert m and m.group(2) == f"{scheduler_ip}:{scheduler['port']}", text
        rank = int(m.group(1))
        ranks.add(rank)
        assert f"worker {rank}/2: allreduce [3.0, 6.0, 9.0, 12.0]" in text, text
        (first,), (last,) = floats(rf"worker {rank}/2: epoch \d+ loss ([\d.]+)", text)
        assert last < first / 100, text
        (max_error, checksum), = floats(r"max_error ([\d.]+) checksum (-?[\d.]+)", text)
        assert max_error < 0.05, text
        checksums.add(checksum)
    assert ranks == {0, 1}
    assert len(checksums) == 1, f"workers hold different weights: {checksums}"


# --- Horovod -----------------------------------------------------------------------------------

def test_horovod_two_workers_rendezvous_at_the_driver_task(minicluster, tmp_path):
    require(HOROVOD_PYTHON, "horovod.torch")
    job = example_submit(minicluster, tmp_path, "horovod", "train.py", HOROVOD_PYTHON,
                         conf=[f"tony.worker.memory={TWO_PER_CLUSTER}"])
    assert len(job.node_managers(["worker"])) == 2, job.tasks
    driver = job.tasks[("driver", 0)]
    workers = [job.tasks[("worker", i)] for i in (0, 1)]
    # horovod's slot plan: hosts in worker order, ranks host by host.
    hosts = list(dict.fromkeys(w["host"] for w in workers))
    plan = ",".join(f"{h}:{sum(w['host'] == h for w in workers)}" for h in hosts)
    assert f"tony horovod driver: rendezvous on port {driver['port']} for {plan}" in job.output(
        "driver", 0)
    assert driver["state"] == "STOPPED" and "stopped" in driver["diagnostics"], driver
    same_host = len(hosts) == 1
    for index in (0, 1):
        text = job.output("worker", index)
        # One host (both NodeManagers of the minicluster may report the same one): ranks 0 and 1
        # are local ranks 0 and 1 of it; two hosts: each worker is local rank 0 of its own.
        expected = (f"local_rank {index}/2 cross_rank 0/1" if same_host else
                    f"local_rank 0/1 cross_rank {index}/2")
        assert f"rank {index}/2: {expected}" in text, text
        assert f"rank {index}/2: allreduce [3.0, 6.0, 9.0, 12.0]" in text, text
        trained = floats(rf"rank {index}/2: loss first ([\d.]+) last ([\d.]+) "
                         r"max_error ([\d.]+) in_sync True", text)
        assert trained, text
        first, last, max_error = trained[0]
        assert last < first / 5 and max_error < 0.05, text


# --- A shipped venv ----------------------------------------------------------------------------

# Runs in the interpreter's startup (a .pth line that starts with "import" is executed): proof
# that the task's python is the shipped venv's, without touching the example.
VENV_MARKER = ("import sys; sys.stdout.write('shipped venv: prefix %s base %s\\n' "
               "% (sys.prefix, sys.base_prefix))\n")


def test_horovod_debug_driver_of_the_job_serves_the_rendezvous_on_yarn(minicluster, tmp_path):
    # TonY's driver debug mode: the job's own driver (tests/frameworks/test_horovod.py's, as
    # TonY's horovod_debug_driver.py works) picks its port and writes the port file; the workers,
    # on both NodeManagers, get the driver's host with that port and its slot plan.
    require(HOROVOD_PYTHON, "horovod.torch")
    from test_horovod import DEBUG_DRIVER
    src = tmp_path / "src"
    shutil.copytree(os.path.join(example("horovod"), "src"), src)
    (src / "my_driver.py").write_text(DEBUG_DRIVER)
    job = submit(minicluster, tmp_path, str(src), "train.py", HOROVOD_PYTHON,
                 conf_file=os.path.join(example("horovod"), "tony.xml"),
                 conf=[f"tony.worker.memory={TWO_PER_CLUSTER}",
                       "tony.horovod.driver.mode.debug=true",
                       f"tony.driver.command={HOROVOD_PYTHON} my_driver.py"])
    assert len(job.node_managers(["worker"])) == 2, job.tasks
    driver = job.tasks[("driver", 0)]
    m = re.search(r"debug driver: rendezvous on port (\d+)", job.output("driver", 0))
    assert m and int(m.group(1)) != driver["port"], job.output("driver", 0)
    for index in (0, 1):
        text = job.output("worker", index)
        assert "/2: allreduce [3.0, 6.0, 9.0, 12.0]" in text, text


def test_shipped_venv_runs_the_pytorch_example(minicluster, tmp_path):
    """A venv zip (--python_venv) staged to HDFS and unpacked into venv/ of each container; a
    relative --python_binary_path runs from it. The venv is made with --system-site-packages over
    Debian's python3, so it is a few KB and torch comes from the nodes' system packages, as a
    cluster with a framework installed on its nodes would have it."""
    venv = tmp_path / "venv"
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", "--system-site-packages",
                    str(venv)], check=True)
    site = subprocess.run([str(venv / "bin" / "python3"), "-c",
                           "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    write(os.path.join(site, "tony_test_marker.pth"), VENV_MARKER)
    venv_zip = str(tmp_path / "venv.zip")
    subprocess.run(["zip", "-q", "-r", "-y", venv_zip, "."], cwd=venv, check=True)
    assert os.path.getsize(venv_zip) < 100_000
    job = example_submit(minicluster, tmp_path, "pytorch-ddp", "train.py", "bin/python3",
                         task_params="--epochs 30",
                         conf=[f"tony.worker.memory={TWO_PER_CLUSTER}"],
                         extra=["--python_venv", venv_zip])
    assert len(job.node_managers()) == 2, job.tasks
    for rank in (0, 1):
        text = job.output("worker", rank)
        m = re.search(r"shipped venv: prefix (\S+) base (\S+)", text)
        # The container's own unpacked venv/, not the one this test built.
        assert m and m.group(1).endswith("/venv") and m.group(1) != str(venv), text
        assert job.app_id[len("application_"):] in m.group(1) and m.group(2) == "/usr", text
        final = re.search(rf"rank {rank}/2: final test loss ([\d.]+) accuracy ([\d.]+) "
                          r"replicas_in_sync (\w+)", text)
        assert final and float(final.group(2)) >= 0.95 and final.group(3) == "True", text


# --- Refused before submitting -----------------------------------------------------------------

@pytest.mark.parametrize("framework,conf,expected", [
    ("mxnet", {"tony.server.instances": "1", "tony.worker.instances": "2"},
     "needs exactly one scheduler task"),
    ("horovod", {"tony.ps.instances": "1", "tony.worker.instances": "2"},
     "horovod has no parameter servers"),
    ("standalone", {"tony.worker.instances": "3"}, "standalone runs exactly one task"),
])
def test_a_job_its_framework_cannot_run_is_refused_before_submitting(minicluster, tmp_path,
                                                                     framework, conf, expected):
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = minicluster
    src = tmp_path / "src"
    write(str(src / "job.py"), "print('never runs')\n")
    xml = tony_xml(str(tmp_path / "tony.xml"),
                   {"tony.application.framework": framework, **conf})
    r = tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", xml, timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    assert expected in r.stderr, r.stderr
    assert "submitted" not in r.stdout, r.stdout
