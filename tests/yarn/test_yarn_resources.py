"""Resources on a real YARN: `tony.<role>.gpus` asked as yarn.io/gpu (the minicluster's
NodeManagers advertise 2 each), asks the cluster cannot grant refused before submitting, the
per-task NODE and LOG URL columns of `tony status`, and a job that runs across an AMRMToken
roll-over (its own minicluster, with a short master-key rolling interval and no GPUs)."""
import glob
import json
import os
import re
import urllib.request
import xml.etree.ElementTree as ET

from minicluster import minicluster_fixture
from tonytest import SYSTEM_PYTHON, Tony, eventually, tony_xml, write

# Waits for the test's go-ahead (a file), so that the test can look at the running containers.
WAITING_SCRIPT = """
import os, sys, time
role, index = os.environ["JOB_NAME"], int(os.environ["TASK_INDEX"])
seen = sorted(k for k in os.environ if "CUDA" in k or "GPU" in k)
print(f"{role}:{index} gpu variables: {seen}", flush=True)
deadline = time.monotonic() + 240
while not os.path.exists(os.environ["RELEASE"]):
    if time.monotonic() > deadline:
        sys.exit("never released")
    time.sleep(0.2)
"""

# The RM's AMRMToken master key rolls every 25 s and the next key becomes the only one
# 1.5 x the AM expiry interval later; the RM refuses a rolling interval of 3 x the expiry
# interval or less (AMRMTokenSecretManager). 8 s leaves the AM time to start on a busy machine.
ROLLING_CONF = {
    "yarn.am.liveness-monitor.expiry-interval-ms": "8000",
    "yarn.resourcemanager.am-rm-tokens.master-key-rolling-interval-secs": "25",
    "yarn.resource-types": "",
    "yarn.nodemanager.resource-type.yarn.io/gpu": "",
}
ROLL_LINE = re.compile(r"rolled the AMRMToken to master key (-?\d+); reconnecting")


rolling_minicluster = minicluster_fixture(nodemanagers=1, conf=ROLLING_CONF)


def rm_get(conf_dir, path):
    """GET from the RM's REST API: its own view, independent of what tony reports."""
    root = ET.parse(os.path.join(conf_dir, "yarn-site.xml")).getroot()
    web = next(p.findtext("value") for p in root.iter("property")
               if p.findtext("name") == "yarn.resourcemanager.webapp.address")
    req = urllib.request.Request(f"http://{web}/ws/v1/cluster/{path}",
                                 headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


def rm_containers(conf_dir, app_id):
    """container id -> the RM's record of it (allocated resources, node), for a running app."""
    attempts = rm_get(conf_dir, f"apps/{app_id}/appattempts")["appAttempts"]["appAttempt"]
    attempt = attempts[-1]["appAttemptId"]
    found = rm_get(conf_dir, f"apps/{app_id}/appattempts/{attempt}/containers").get("container")
    return {c["containerId"]: c for c in found or []}


def allocated(container, resource):
    for entry in container["allocatedResources"]["entry"]:
        if entry["key"] == resource:
            return int(entry["value"])
    return 0


def apps_submitted(conf_dir):
    return rm_get(conf_dir, "metrics")["clusterMetrics"]["appsSubmitted"]


def start_waiting_job(tony, tmp_path, **props):
    src = tmp_path / "src"
    write(str(src / "job.py"), WAITING_SCRIPT)
    conf = {"tony.application.framework": "pytorch", "tony.worker.instances": "2",
            "tony.worker.memory": "256m", "tony.am.memory": "256m"}
    conf.update(props)
    xml = tony_xml(str(tmp_path / "tony.xml"), conf)
    release = tmp_path / "release"
    proc = tony.start("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                      "--src_dir", str(src), "--conf_file", xml,
                      "--shell_env", f"RELEASE={release}")
    return proc, release


def submit_quick(tony, tmp_path, **props):
    src = tmp_path / "src"
    write(str(src / "job.py"), "print('never runs')\n")
    conf = {"tony.application.framework": "pytorch", "tony.worker.instances": "2",
            "tony.worker.memory": "256m", "tony.am.memory": "256m"}
    conf.update(props)
    xml = tony_xml(str(tmp_path / "tony.xml"), conf)
    return tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                    "--src_dir", str(src), "--conf_file", xml, timeout=120)


def test_gpu_workers_run_in_containers_with_one_yarn_gpu_each(minicluster, tmp_path):
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = minicluster
    proc, release = start_waiting_job(tony, tmp_path, **{"tony.worker.gpus": "1"})
    try:
        app_id = eventually(tony.running_job, timeout=180, interval=0.5,
                            what="both workers running")
        tasks = tony.status(app_id)["tasks"]
        containers = rm_containers(minicluster, app_id)
        for t in tasks:
            c = containers[t["container_id"]]
            assert allocated(c, "yarn.io/gpu") == 1, c
            # The task's node is the container's NodeManager as the RM knows it.
            assert t["node"] == c["nodeId"], (t, c)
        am = [c for cid, c in containers.items() if cid.endswith("_000001")]
        assert len(am) == 1 and allocated(am[0], "yarn.io/gpu") == 0, containers
        release.touch()
        out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out + err
    assert f"job {app_id} SUCCEEDED" in out, out + err
    # Without the NodeManager's GPU plugin YARN tells a container nothing about its GPUs, and
    # tony sets nothing itself on YARN (engine/yarn/yarn_engine.h).
    logs = tony.run("logs", app_id, "--task", "worker:0")
    assert "worker:0 gpu variables: []" in logs.stdout, logs.stdout + logs.stderr

    # `tony status` shows each task's node and log URL, and no AM-side log dir.
    s = tony.run("status", app_id)
    assert s.returncode == 0, s.stdout + s.stderr
    lines = s.stdout.splitlines()
    header = next(line for line in lines if line.startswith("ROLE"))
    assert header.split() == ["ROLE", "INDEX", "STATE", "NODE", "HOST:PORT", "EXIT", "LOG",
                              "URL"], s.stdout
    for t in tony.status(app_id)["tasks"]:
        row = next(r for r in map(str.split, lines) if r[:2] == ["worker", str(t["index"])])
        assert row[3] == t["node"] and row[-1] == t["log_url"], (row, t)
        assert t["log_url"].startswith("http://") and t["container_id"] in t["log_url"], t


def test_more_gpus_than_a_node_has_are_refused_before_submitting(minicluster, tmp_path):
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = minicluster
    before = apps_submitted(minicluster)
    r = submit_quick(tony, tmp_path, **{"tony.worker.gpus": "3"})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "tony.worker.gpus" in r.stderr and "yarn.io/gpu:3" in r.stderr, r.stderr
    assert "the largest NodeManager has yarn.io/gpu:2" in r.stderr, r.stderr
    r = submit_quick(tony, tmp_path, **{"tony.am.gpus": "3"})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "tony.am.gpus" in r.stderr, r.stderr
    assert "submitted" not in r.stdout, r.stdout
    assert apps_submitted(minicluster) == before


def test_gpus_on_a_cluster_without_gpus_are_refused(rolling_minicluster, tmp_path):
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = rolling_minicluster
    r = submit_quick(tony, tmp_path, **{"tony.worker.gpus": "1"})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "tony.worker.gpus" in r.stderr and "this cluster has no GPUs" in r.stderr, r.stderr
    assert "submitted" not in r.stdout, r.stdout


def am_log(conf_dir, app_id):
    # The minicluster keeps container logs under <conf dir>/data (tests/minicluster).
    found = glob.glob(os.path.join(conf_dir, "data", "**", app_id, "container_*_000001",
                                   "am.log"), recursive=True)
    return open(found[0]).read() if found else ""


def test_job_runs_across_an_amrm_token_roll_over(rolling_minicluster, tmp_path):
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = rolling_minicluster
    proc, release = start_waiting_job(tony, tmp_path)
    try:
        app_id = eventually(tony.running_job, timeout=180, interval=0.5,
                            what="both workers running")
        eventually(lambda: ROLL_LINE.search(am_log(rolling_minicluster, app_id)), timeout=90,
                   interval=0.5, what="the AM to see the AMRMToken roll")
        # Had the AM not reconnected with the rolled token, the RM would send it again on every
        # heartbeat (1 s apart) until the next roll: wait for that next roll, so that the AM has
        # heartbeated with the first rolled key for a whole rolling interval, however slow the
        # machine.
        eventually(lambda: len(set(ROLL_LINE.findall(am_log(rolling_minicluster, app_id)))) >= 2,
                   timeout=120, interval=0.5, what="the AM to see the next AMRMToken roll")
        release.touch()
        out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out + err
    assert f"job {app_id} SUCCEEDED" in out, out + err
    log = am_log(rolling_minicluster, app_id)
    keys = ROLL_LINE.findall(log)
    assert keys, log
    assert len(keys) == len(set(keys)), f"the RM sent a rolled token more than once:\n{log}"
    assert "heartbeat to the ResourceManager failed" not in log, log
    assert "unregistered from the ResourceManager: SUCCEEDED" in log, log
