"""tony against a highly available cluster: a MiniYARNCluster with two ResourceManagers (rm0
active, rm1 standby; tests/minicluster --ha) and an HDFS nameservice "tonyns" whose first NameNode
(nn0) is dead, whose second (nn1) is a real standby NameNode and whose third (nn2) is the active
one. The client and the AM must go round the RMs in rm-ids order past dead and standby ones,
WebHDFS must skip the dead and the standby NameNode, the NodeManagers localize hdfs://tonyns/...
URLs, and a running job must survive a real RM failover (rm0 -> standby, rm1 -> active). One
module, one minicluster of its own (the tier's shared one has a single RM)."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.request
import xml.etree.ElementTree as ET

import pytest

from minicluster import edit_site
from tonytest import SYSTEM_PYTHON, Tony, eventually, tony_xml, write

HERE = os.path.dirname(os.path.abspath(__file__))
START = os.path.join(HERE, "..", "minicluster", "start.sh")

SCRIPT = """
import os, sys, time
role, index = os.environ["JOB_NAME"], int(os.environ["TASK_INDEX"])
time.sleep(float(os.environ.get("SLEEP", "0")))
print(f"hello from {role}:{index}", flush=True)
"""


class HaCluster:
    """The --ha minicluster: its conf dir, which RM is active, and a way to fail over."""

    def __init__(self, conf_dir, proc):
        self.conf_dir = conf_dir
        self.proc = proc
        self.active, self.standby = "rm0", "rm1"

    def failover(self, timeout=120):
        self.proc.stdin.write("failover\n")
        self.proc.stdin.flush()
        line = read_line_until(self.proc, "MINICLUSTER FAILED OVER", timeout)
        new_active = line.split()[-1]
        if self.active is None:  # after standby(): the harness makes rm0 active
            assert new_active == "rm0", line
            self.active, self.standby = "rm0", "rm1"
            return
        assert new_active == self.standby, line
        self.active, self.standby = self.standby, self.active

    def no_active(self, timeout=120):
        """The active RM becomes the standby: none is active until the next failover()."""
        self.proc.stdin.write("standby\n")
        self.proc.stdin.flush()
        read_line_until(self.proc, "MINICLUSTER NO ACTIVE RM", timeout)
        self.active, self.standby = None, self.active

    def property(self, file, key):
        return site_properties(os.path.join(self.conf_dir, file)).get(key)


def read_line_until(proc, marker, timeout):
    found = []

    def reader():
        for line in proc.stdout:
            sys.stderr.write("minicluster: " + line)
            if marker in line:
                found.append(line.strip())
                return

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    t.join(timeout)
    if not found:
        if not t.is_alive():  # its stdout closed: the JVM is gone
            pytest.fail(f"the minicluster exited (status {proc.wait(10)}) before printing "
                        f"{marker!r}")
        pytest.fail(f"the minicluster did not print {marker!r} within {timeout}s")
    return found[0]


@pytest.fixture(scope="module")
def ha_cluster():
    conf_dir = tempfile.mkdtemp(prefix="tony-minicluster-ha-")
    proc = subprocess.Popen(["bash", START, conf_dir, "2", "--ha"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        read_line_until(proc, "MINICLUSTER READY", 600)
        yield HaCluster(conf_dir, proc)
    finally:
        try:
            proc.stdin.close()
            proc.wait(timeout=60)
        except Exception:
            pass
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()


def site_properties(path):
    root = ET.parse(path).getroot()
    return {p.findtext("name"): p.findtext("value") for p in root.iter("property")}


def client_conf(cluster, tmp_path, yarn=None, core=None):
    """A copy of the cluster's site files with changes; fast failover pauses for the test."""
    conf = tmp_path / "hadoop-conf"
    conf.mkdir()
    for name in ("core-site.xml", "hdfs-site.xml", "yarn-site.xml"):
        shutil.copy(os.path.join(cluster.conf_dir, name), conf / name)
    edit_site(str(conf / "yarn-site.xml"), {
        "yarn.client.failover-sleep-base-ms": "200", "yarn.client.failover-sleep-max-ms": "2000",
        "yarn.client.failover-max-attempts": "60", **(yarn or {})})
    if core:
        edit_site(str(conf / "core-site.xml"), core)
    return str(conf)


def dead_address():
    """host:port that nobody listens on."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"127.0.0.1:{port}"


def job_files(tmp_path, **props):
    src = tmp_path / "src"
    write(str(src / "job.py"), SCRIPT)
    conf = {"tony.application.framework": "pytorch", "tony.worker.instances": "2",
            "tony.worker.memory": "256m", "tony.am.memory": "256m"}
    conf.update(props)
    return str(src), tony_xml(str(tmp_path / "tony.xml"), conf)


def submit_args(src, xml, *extra):
    return ("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
            "--src_dir", src, "--conf_file", xml, *extra)


def app_id_from(output):
    m = re.search(r"application (application_\d+_\d+) submitted", output)
    return m.group(1) if m else None


def rm_get(cluster, path):
    web = cluster.property("yarn-site.xml", f"yarn.resourcemanager.webapp.address.{cluster.active}")
    req = urllib.request.Request(f"http://{web}{path}", headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


def am_log(cluster, app_id):
    """The AM container's am.log, from its NodeManager (the RM's view of the attempt)."""
    attempts = rm_get(cluster, f"/ws/v1/cluster/apps/{app_id}/appattempts")["appAttempts"]
    attempt = attempts["appAttempt"][-1]
    url = (f"http://{attempt['nodeHttpAddress']}/ws/v1/node/containerlogs/"
           f"{attempt['containerId']}/am.log")
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def test_job_goes_past_a_dead_rm_a_standby_rm_and_a_dead_namenode(ha_cluster, tmp_path):
    dead = dead_address()
    # rm-ids: a dead RM, then the standby (its client ports are closed while standby), then the
    # active one; fs.defaultFS names the nameservice whose first NameNode is dead.
    ids = f"dead,{ha_cluster.standby},{ha_cluster.active}"
    conf = client_conf(ha_cluster, tmp_path, yarn={
        "yarn.resourcemanager.ha.rm-ids": ids,
        "yarn.resourcemanager.address.dead": dead,
        "yarn.resourcemanager.scheduler.address.dead": dead,
        "yarn.resourcemanager.webapp.address.dead": dead,
    }, core={"fs.defaultFS": "hdfs://tonyns"})
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = conf
    src, xml = job_files(tmp_path)
    r = tony.run(*submit_args(src, xml), timeout=300)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    app_id = app_id_from(r.stdout)
    assert f"job {app_id} SUCCEEDED" in r.stdout, out
    # The client says where it went.
    assert f"on ResourceManager dead ({dead}) failed" in r.stderr, r.stderr
    assert f"failing over to {ha_cluster.standby} " in r.stderr, r.stderr
    assert f"the active ResourceManager is {ha_cluster.active} " in r.stderr, r.stderr
    assert f"submitted to the ResourceManager {ha_cluster.active} " in r.stdout, r.stdout
    # nn0 is dead, nn1 a real standby NameNode (it answers StandbyException), nn2 the active one.
    nn0, nn1, nn2 = (ha_cluster.property("hdfs-site.xml", f"dfs.namenode.http-address.tonyns.nn{i}")
                     for i in range(3))
    assert f"WebHDFS: skipping NameNode {nn0}" in r.stderr, r.stderr
    assert f"WebHDFS: skipping NameNode {nn1}: NameNode {nn1} is the standby" in r.stderr, r.stderr
    assert f"WebHDFS: the active NameNode is {nn2}" in r.stderr, r.stderr
    # The AM got every scheduler address and failed over the same way.
    log = am_log(ha_cluster, app_id)
    assert f"on ResourceManager {dead} failed" in log, log
    assert "registered with the ResourceManager at" in log, log
    # The staged files were localized from hdfs://tonyns/... (no port): the tasks ran.
    assert [t["state"] for t in tony.status(app_id)["tasks"]] == ["SUCCEEDED", "SUCCEEDED"]


def test_ha_config_errors_name_the_key_and_the_file(ha_cluster, tmp_path):
    conf = client_conf(ha_cluster, tmp_path, yarn={"yarn.resourcemanager.ha.rm-ids": None})
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = conf
    src, xml = job_files(tmp_path)
    r = tony.run(*submit_args(src, xml), timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    assert ("yarn.resourcemanager.ha.rm-ids is empty while yarn.resourcemanager.ha.enabled is "
            f"true in {conf}/yarn-site.xml") in r.stderr, r.stderr


def test_running_job_survives_a_resource_manager_failover(ha_cluster, tmp_path):
    old_active = ha_cluster.active
    conf = client_conf(ha_cluster, tmp_path)
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = conf
    src, xml = job_files(tmp_path)
    proc = tony.start(*submit_args(src, xml, "--shell_env", "SLEEP=25"))
    try:
        app_id = eventually(lambda: tony.running_job(tasks=2), timeout=180, interval=0.5,
                            what="both tasks running")
        ha_cluster.failover()
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out + err
    assert f"job {app_id} SUCCEEDED" in out, out + err
    assert f"application {app_id} FINISHED" in out, out + err
    # The client's last reports came from the new active RM, and it said so.
    assert f"failing over to {ha_cluster.active} " in err, err
    # The AM's heartbeats moved to the new active RM, which did not know the attempt yet: it
    # registered again and carried on.
    old_scheduler = ha_cluster.property(
        "yarn-site.xml", f"yarn.resourcemanager.scheduler.address.{old_active}")
    new_scheduler = ha_cluster.property(
        "yarn-site.xml", f"yarn.resourcemanager.scheduler.address.{ha_cluster.active}")
    # The RM says FINISHED (what the client waited for) a moment before the AM's Finish call
    # returns and it logs so: read the log until that line is there.
    logs = []
    try:
        eventually(lambda: logs.append(am_log(ha_cluster, app_id)) or
                   "unregistered from the ResourceManager: SUCCEEDED" in logs[-1],
                   timeout=30, interval=0.5, what="the AM's unregister in its log")
    except AssertionError as e:
        raise AssertionError(f"{e}\n{logs[-1] if logs else ''}") from None
    log = logs[-1]
    assert f"on ResourceManager {old_scheduler} failed" in log, log
    assert f"failing over to {new_scheduler}" in log, log
    assert "does not know this ApplicationMaster" in log, log
    assert "unregistered from the ResourceManager: SUCCEEDED" in log, log
    # The new active RM's own view.
    app = rm_get(ha_cluster, f"/ws/v1/cluster/apps/{app_id}")["app"]
    assert app["finalStatus"] == "SUCCEEDED", app
    tasks = tony.status(app_id)["tasks"]
    assert [t["state"] for t in tasks] == ["SUCCEEDED", "SUCCEEDED"], tasks

