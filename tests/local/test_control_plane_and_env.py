"""The control plane refuses calls without the job's secret, and tasks see the environment their
framework expects (a TensorFlow-shaped job checks its TF_CONFIG and TB_PORT)."""
import json
import os
import subprocess

from tonytest import SYSTEM_PYTHON, assert_nothing_left, eventually, tony_xml, write

PROBE = os.environ.get("TONY_RPC_PROBE", os.path.join(os.path.dirname(__file__), "../../build/tests/tony_rpc_probe"))


def test_calls_without_the_job_secret_are_refused(tony, tmp_path):
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "1", "tony.worker.memory": "256m",
        "tony.application.framework": "generic"})
    proc = tony.start("submit", "--executes", "sleep 60", "--conf_file", conf)
    eventually(lambda: tony.jobs() and os.path.exists(os.path.join(tony.job_dir(), "am.json")),
               what="the coordinator to listen")
    am = json.load(open(os.path.join(tony.job_dir(), "am.json")))
    address = f"{am['host']}:{am['port']}"
    # The secret is in no file (tests/local/test_job_secret.py); the task registering and
    # running shows the executor's calls carry it.
    eventually(lambda: tony.running_job(tasks=1), what="the task to run")
    wrong = subprocess.run([PROBE, address, "0" * 64], capture_output=True, text=True)
    assert wrong.returncode == 1 and "UNAUTHENTICATED" in wrong.stdout, wrong.stdout
    empty = subprocess.run([PROBE, address, ""], capture_output=True, text=True)
    assert empty.returncode == 1 and "UNAUTHENTICATED" in empty.stdout, empty.stdout

    assert tony.run("kill", os.path.basename(tony.job_dir())).returncode == 0
    proc.communicate(timeout=30)
    assert_nothing_left(tony.home)


TF_SCRIPT = """
import json, os, time
out = os.path.join(os.environ["TONY_LOG_DIR"], "env.json")
keys = ["TF_CONFIG", "CLUSTER_SPEC", "JOB_NAME", "TASK_INDEX", "TASK_NUM", "IS_CHIEF",
        "DISTRIBUTED_MODE", "TONY_JOB_SECRET", "TB_PORT", "TB_SERVER_REUSE_PORT"]
json.dump({k: os.environ.get(k) for k in keys}, open(out, "w"))
if os.environ["JOB_NAME"] == "ps":
    time.sleep(300)  # a ps never exits by itself; tony stops it when the chief is done
if os.environ["JOB_NAME"] == "chief":
    time.sleep(2)  # an explicit chief's success ends the job (as Kubeflow's TFJob): let the
                   # workers write their files first
"""


def test_tensorflow_job_sees_correct_tf_config_for_chief_workers_and_ps(tony, tmp_path):
    """Every task sees its TF_CONFIG; only the chief gets TB_PORT (TonY's
    testTensorBoardPortSetOnlyOnChiefWorker), and the job's status shows its URL."""
    src = tmp_path / "src"
    write(str(src / "tf_shaped.py"), TF_SCRIPT)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "tensorflow", "tony.chief.instances": "1",
        "tony.worker.instances": "2", "tony.ps.instances": "1", "tony.chief.memory": "256m",
        "tony.worker.memory": "256m", "tony.ps.memory": "256m"})
    r = tony.run("submit", "--executes", "tf_shaped.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf)
    assert r.returncode == 0, r.stdout + r.stderr
    tasks = tony.status()["tasks"]
    addresses = {}
    for t in sorted(tasks, key=lambda t: (t["role"], t["index"])):
        addresses.setdefault(t["role"], []).append(f"{t['host']}:{t['port']}")
    assert set(addresses) == {"chief", "worker", "ps"}
    for t in tasks:
        env = json.load(open(os.path.join(t["log_dir"], "env.json")))
        tf = json.loads(env["TF_CONFIG"])
        assert tf["task"] == {"type": t["role"], "index": t["index"]}
        assert tf["cluster"] == addresses
        assert json.loads(env["CLUSTER_SPEC"]) == addresses
        assert env["JOB_NAME"] == t["role"] and env["TASK_INDEX"] == str(t["index"])
        assert env["TASK_NUM"] == "3"  # chief + 2 workers; ps is untracked
        assert env["IS_CHIEF"] == ("true" if t["role"] == "chief" else None)
        assert env["DISTRIBUTED_MODE"] == "GANG"
        assert env["TONY_JOB_SECRET"] is None, "the job secret must not reach user code"
        # TonY's testTensorBoardPortSetOnlyOnChiefWorker: a port of its own, held as the task's.
        if t["role"] == "chief":
            assert env["TB_PORT"] and env["TB_PORT"] != str(t["port"]), env
            assert env["TB_SERVER_REUSE_PORT"] == "true"
            tensorboard_url = f"http://{t['host']}:{env['TB_PORT']}"
        else:
            assert env["TB_PORT"] is None and env["TB_SERVER_REUSE_PORT"] is None, env
    assert tony.status()["tensorboard_url"] == tensorboard_url
    assert tony.task("ps", 0)["state"] == "STOPPED"
    assert_nothing_left(tony.home)
