"""The fault matrix on YARN (issue 11; README "Restarts"): what a user sees when a task's executor
is killed with -9 or stopped with SIGSTOP inside its container, each ending as its role's policy
says, with the cause in the job's message, the application ended in the RM and no process of the
application left on this machine (the minicluster's NodeManagers run their containers here)."""
import getpass
import os
import re
import signal

import pytest

from minicluster import hdfs_cat, minicluster_fixture
from tonytest import SYSTEM_PYTHON, Tony, assert_nothing_left, eventually, gone, tony_xml, write
from test_yarn_e2e import app_id_from, rm_app, rm_rest


# This module's minicluster, with its control channel (a NodeManager can be stopped; the test
# that does so runs last).
cluster = minicluster_fixture(nodemanagers=2, control=True)


@pytest.fixture
def minicluster(cluster):
    return cluster[0]

# Every attempt records its pid and waits until the test says go (so that a fault hits a running
# task and its peer runs through it), then exits 0.
SCRIPT = """
import os, sys, time
d = sys.argv[1]
index, attempt = int(os.environ["TASK_INDEX"]), int(os.environ["ATTEMPT_NUMBER"])
open(os.path.join(d, f"pid-{index}-{attempt}.tmp"), "w").write(str(os.getpid()))
os.rename(os.path.join(d, f"pid-{index}-{attempt}.tmp"), os.path.join(d, f"pid-{index}-{attempt}"))
deadline = time.monotonic() + 180
while not os.path.exists(os.path.join(d, "go")):
    if time.monotonic() > deadline:
        sys.exit(9)
    time.sleep(0.05)
print(f"worker:{index} attempt {attempt} done", flush=True)
"""


def start(tmp_path, conf_dir, props):
    d = tmp_path / "shared"
    d.mkdir(parents=True)
    d.chmod(0o777)
    src = tmp_path / "src"
    write(str(src / "task.py"), SCRIPT)
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "generic", "tony.worker.instances": "2",
        "tony.worker.memory": "256m", "tony.am.memory": "256m",
        "tony.task.heartbeat-interval-ms": "500", "tony.task.max-missed-heartbeats": "6",
        **props})
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = conf_dir
    proc = tony.start("submit", "--executes", "task.py", "--task_params", str(d),
                      "--python_binary_path", SYSTEM_PYTHON, "--src_dir", str(src),
                      "--conf_file", xml)
    return tony, proc, d


def pid_of(d, index, attempt):
    path = d / f"pid-{index}-{attempt}"
    return int(eventually(lambda: path.exists() and path.read_text(), timeout=120,
                          what=f"worker:{index} attempt {attempt} running"))


def executor_of(pid):
    """The `tony executor` process above the user process `pid` (its container's main process)."""
    p = pid
    while p > 1:
        with open(f"/proc/{p}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
        if len(argv) > 1 and argv[0].endswith(b"/tony") and argv[1] == b"executor":
            return p
        with open(f"/proc/{p}/stat") as f:
            p = int(f.read().rsplit(")", 1)[1].split()[1])
    raise AssertionError(f"no tony executor above pid {pid}")


def finish(proc, d):
    (d / "go").touch()
    out, err = proc.communicate(timeout=240)
    return out, err, app_id_from(out)


def test_kill_9_of_an_executor_restarts_its_task_in_a_new_container(minicluster, tmp_path):
    tony, proc, d = start(tmp_path, minicluster, {
        "tony.worker.restart-policy": "on-failure", "tony.worker.restart-scope": "task",
        "tony.worker.restart-backoff-ms": "100"})
    try:
        peer = pid_of(d, 0, 0)
        victim_user = pid_of(d, 1, 0)
        victim = executor_of(victim_user)
        os.kill(victim, signal.SIGKILL)
        pid_of(d, 1, 1)  # the replacement runs
        assert not gone(peer), peer  # task scope: the peer ran on
    finally:
        out, err, app_id = finish(proc, d)
    assert proc.returncode == 0, out + err
    assert f"job {app_id} SUCCEEDED" in out, out
    # Its user process went with its container.
    eventually(lambda: gone(victim_user), timeout=30, what="the killed executor's user process gone")
    w1 = tony.task("worker", 1, app_id)
    past = w1["past_attempts"][0]
    assert w1["attempt"] == 1 and w1["state"] == "SUCCEEDED", w1
    assert past["container_id"] != w1["container_id"], w1
    assert past["state"] in ("FAILED", "LOST"), past
    assert "task scope" in past["restart"], past
    assert tony.task("worker", 0, app_id)["attempt"] == 0
    assert rm_app(minicluster, app_id)["finalStatus"] == "SUCCEEDED"
    assert_nothing_left(app_id, timeout=30)


def test_a_stopped_executor_is_lost_and_fails_the_job_leaving_nothing(minicluster, tmp_path):
    tony, proc, d = start(tmp_path, minicluster, {})
    try:
        pid_of(d, 0, 0)
        victim_user = pid_of(d, 1, 0)
        victim = executor_of(victim_user)
        os.kill(victim, signal.SIGSTOP)
        out, err = proc.communicate(timeout=240)
    finally:
        (d / "go").touch()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    app_id = app_id_from(out)
    assert proc.returncode == 1, out + err
    assert f"job {app_id} FAILED" in out, out
    m = re.search(r"task worker:1 (was )?lost[^\n]*", out)
    assert m, out
    assert "heartbeat" in m.group(0), m.group(0)
    app = rm_app(minicluster, app_id)
    assert app["state"] == "FINISHED" and app["finalStatus"] == "FAILED", app
    assert "worker:1" in app["diagnostics"], app["diagnostics"]
    # The stopped executor and its user process were killed with their container.
    eventually(lambda: gone(victim) and gone(victim_user), timeout=60,
               what="the stopped executor and its user process gone")
    assert_nothing_left(app_id, timeout=30)


def test_session_retry_runs_the_failed_job_again_in_new_containers(minicluster, tmp_path):
    """TonY's session retry (tony.am.retry-count) on YARN: a worker whose executor dies fails
    the job under restart-policy never; the job then starts again, every task in a new
    container of the same application, and succeeds, saying which session retry it ran."""
    tony, proc, d = start(tmp_path, minicluster, {"tony.am.retry-count": "1"})
    try:
        pid_of(d, 0, 0)
        victim_user = pid_of(d, 1, 0)
        os.kill(executor_of(victim_user), signal.SIGKILL)
        second = [pid_of(d, i, 1) for i in (0, 1)]  # both run again, as attempt 1
        assert victim_user not in second
    finally:
        out, err, app_id = finish(proc, d)
    assert proc.returncode == 0, out + err
    assert f"job {app_id} SUCCEEDED" in out, out
    status = tony.status(app_id)
    note = f"session retry 1 of 1 (tony.am.retry-count, from {tmp_path / 'tony.xml'}): the job " \
        "failed: task worker:1"
    assert note in status["message"], status
    for i in (0, 1):
        t = tony.task("worker", i, app_id)
        assert t["state"] == "SUCCEEDED" and t["attempt"] == 1, t
        (past,) = t["past_attempts"]
        assert past["restart"].startswith(note), past
        assert past["container_id"] != t["container_id"], t
    assert tony.task("worker", 1, app_id)["past_attempts"][0]["state"] in ("FAILED", "LOST")
    assert rm_app(minicluster, app_id)["finalStatus"] == "SUCCEEDED"
    assert_nothing_left(app_id, timeout=30)


def am_process_of(app_id):
    """The `tony am` process of the application (its AM container runs on this machine)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue
        if len(argv) > 1 and argv[0].endswith(b"/tony") and argv[1] == b"am" and app_id in cwd:
            return int(entry)
    return None


def test_kill_9_of_the_am_fails_the_job_with_the_rm_s_reason_and_leaves_nothing(
        minicluster, tmp_path):
    """The coordinator itself dies (kill -9 of the AM: a crash, the OOM killer). The cluster has
    one AM attempt per application, so the RM fails the application; the client says why, in
    the RM's words, the tasks it saw running are LOST, and every container and process goes."""
    tony, proc, d = start(tmp_path, minicluster, {})
    try:
        users = [pid_of(d, i, 0) for i in (0, 1)]
        app_id = eventually(lambda: tony.running_job(tasks=2), timeout=60, what="both running")
        am = eventually(lambda: am_process_of(app_id), timeout=30, what="the AM process")
        os.kill(am, signal.SIGKILL)
        out, err = proc.communicate(timeout=240)
    finally:
        (d / "go").touch()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 1, out + err
    app = rm_app(minicluster, app_id)
    assert app["finalStatus"] == "FAILED", app
    assert "137" in app["diagnostics"], app["diagnostics"]  # the AM container's SIGKILL
    assert f"job {app_id} FAILED" in out, out
    assert "137" in out, out  # the RM's reason reaches the user
    # The AM that ran is gone for good: the client says it has only the RM's report.
    assert f"the AM of {app_id}" in err and "did not give its final status" in err, err
    status = tony.status(app_id)
    assert [t["state"] for t in status["tasks"]] == ["LOST", "LOST"], status
    assert all("the application ended without its coordinator reporting it" in t["end_reason"]
               for t in status["tasks"]), status
    eventually(lambda: all(gone(p) for p in users), timeout=60,
               what="the tasks' user processes gone")
    assert_nothing_left(app_id, timeout=30)


def environ_of(pid):
    with open(f"/proc/{pid}/environ", "rb") as f:
        return dict(e.decode().split("=", 1) for e in f.read().split(b"\0") if b"=" in e)


def proto_fields(data):
    """The (field number, value) pairs of a protobuf message's bytes: an int for a varint, bytes
    for a length-delimited field; enough to read the AM's journal (rpc/am_journal.proto)."""
    fields, i = [], 0

    def varint():
        nonlocal i
        n = shift = 0
        while True:
            b = data[i]
            i += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return n

    while i < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            fields.append((number, varint()))
        elif wire == 2:
            n = varint()
            fields.append((number, data[i:i + n]))
            i += n
        else:
            raise AssertionError(f"field {number} has wire type {wire}: not an AM journal")
    return fields


def journal_tasks(conf_dir, staging):
    """The tasks of <staging>/am/journal.pb as (role, index, state, container id), or None while
    there is no journal of version 1 (AmJournal.version = 1, tasks = 9; Task.role = 1, index = 2,
    state = 4, container_id = 5)."""
    data = hdfs_cat(conf_dir, staging + "/am/journal.pb")
    if data is None:
        return None
    journal = proto_fields(data)
    if (1, 1) not in journal:
        return None
    tasks = []
    for number, value in journal:
        if number != 9:
            continue
        task = dict(proto_fields(value))
        # proto3 leaves out empty fields: a task asked for but not yet in a container has no
        # container id (field 5) in a journal written meanwhile.
        tasks.append((task[1].decode(), task.get(2, 0), task.get(4, b"").decode(),
                      task.get(5, b"").decode()))
    return tasks


def test_with_am_retries_the_am_writes_its_address_where_its_executors_look(
        minicluster, tmp_path):
    """tony.am.retry-count 1 (docs/am-restart.md §2, §4): the client asks YARN for a second AM
    attempt and says that this cluster's yarn.resourcemanager.am.max-attempts (1) caps it; the AM
    writes <staging dir>/am/address, naming its attempt and the address its executors dial, and
    every executor has that staging dir and its own container id in its environment. It journals
    the job next to it (<staging dir>/am/journal.pb, §3): both tasks RUNNING in their containers."""
    tony, proc, d = start(tmp_path, minicluster, {"tony.am.retry-count": "1"})
    try:
        users = [pid_of(d, i, 0) for i in (0, 1)]
        app_id = eventually(lambda: tony.running_job(tasks=2), timeout=60, what="both running")
        user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
        staging = f"/user/{user}/.tony/{app_id}"
        text = hdfs_cat(minicluster, staging + "/am/address")
        envs = [environ_of(executor_of(p)) for p in users]
        def both_running():
            tasks = journal_tasks(minicluster, staging)
            return tasks if tasks and all(state == "RUNNING" for _, _, state, _ in tasks) else None

        journal = eventually(both_running, timeout=30, what="the AM's journal, both tasks RUNNING")
    finally:
        out, err, _ = finish(proc, d)
    assert proc.returncode == 0, out + err
    note = (f"tony: note: retry count 1 (tony.am.retry-count, from {tmp_path / 'tony.xml'}) asks "
            "YARN for 2 AM attempts, but yarn.resourcemanager.am.max-attempts is 1 (in this "
            f"client's Hadoop configuration in {minicluster})")
    assert note in out and "a dead AM ends the job" in out, out
    assert text is not None, f"no {staging}/am/address while the job ran"
    assert text.decode().count("\n") == 1 and text.decode().endswith("\n"), text
    attempt, address = text.decode().split()
    assert attempt == "appattempt_" + app_id[len("application_"):] + "_000001", attempt
    for env in envs:
        assert env["TONY_AM_ADDRESS"] == address, (env["TONY_AM_ADDRESS"], address)
        assert env["TONY_YARN_STAGING_DIR"] == staging, env
        assert env["TONY_YARN_STAGING_NAMENODE_HTTP"], env
        assert env["CONTAINER_ID"] == env["TONY_CONTAINER_ID"], env
    assert {env["CONTAINER_ID"] for env in envs} == {
        tony.task("worker", i, app_id)["container_id"] for i in (0, 1)}
    assert [(role, index, container) for role, index, _, container in journal] == [
        ("worker", i, tony.task("worker", i, app_id)["container_id"]) for i in (0, 1)], journal
    assert_nothing_left(app_id, timeout=30)


def start_off_the_am_node(tmp_path, conf_dir, control, props, tries=4):
    """Starts the job until YARN places a worker on a NodeManager other than the AM's (it may put
    all three containers on one: 3 x 256 MB fit), so that losing that node leaves the AM. Returns
    (tony, proc, d, app_id, nodes, node_of, the victim NodeManager's index)."""
    for n in range(tries):
        tony, proc, d = start(tmp_path / f"try-{n}", conf_dir, props)
        try:
            pid_of(d, 0, 0)
            pid_of(d, 1, 0)
            app_id = eventually(lambda: tony.running_job(tasks=2), timeout=60,
                                what="both running")
            nodes = control.nodes()
            am_web_port = int(rm_app(conf_dir, app_id)["amHostHttpAddress"].rsplit(":", 1)[1])
            node_of = {t["index"]: t["node"] for t in tony.status(app_id)["tasks"]}
            # The NodeManager of a worker, not the AM's (stopping that one would end the attempt).
            victims = [i for i, (node, web) in nodes.items()
                       if web != am_web_port and node in node_of.values()]
        except BaseException:
            finish(proc, d)
            raise
        if victims:
            return tony, proc, d, app_id, nodes, node_of, victims[0]
        out, err, _ = finish(proc, d)  # every worker beside the AM: this placement cannot serve
        assert proc.returncode == 0, out + err
    raise AssertionError(f"YARN placed both workers on the AM's node {tries} times out of {tries}")


def test_a_lost_node_is_replaced_uncounted_on_another_node(cluster, tmp_path):
    """A machine lost under a running task (the RM's liveness monitor expires its NodeManager, so
    the task's container ends with YARN's status -100): the task is replaced, whatever its restart
    policy ("never" here), without using its budget, and its peer runs on (task scope)."""
    conf_dir, control = cluster
    tony, proc, d, app_id, nodes, node_of, victim_nm = start_off_the_am_node(
        tmp_path, conf_dir, control,
        {"tony.worker.restart-scope": "task", "tony.task.max-missed-heartbeats": "30"})
    try:
        victim = next(index for index, node in node_of.items() if node == nodes[victim_nm][0])
        victim_user = pid_of(d, victim, 0)
        stopped = control.lose_nodemanager(victim_nm)
        pid_of(d, victim, 1)  # its replacement runs, on the NodeManager left
    finally:
        out, err, app_id = finish(proc, d)
    assert proc.returncode == 0, out + err
    assert f"job {app_id} SUCCEEDED" in out, out
    t = tony.task("worker", victim, app_id)
    past = t["past_attempts"][0]
    assert t["attempt"] == 1 and t["state"] == "SUCCEEDED", t
    assert t["node"] != stopped and past["container_id"] != t["container_id"], (t, stopped)
    assert past["restart"].startswith("replaced, not counted as a failure"), past
    assert "-100" in past["restart"] or "lost" in past["restart"].lower(), past
    peer = tony.task("worker", 1 - victim, app_id)
    if node_of[1 - victim] == node_of[victim]:
        # YARN placed both workers on the lost node (it may: 2 x 256 MB fit on one): the peer
        # was lost with it and replaced the same way, uncounted.
        assert peer["attempt"] == 1 and peer["past_attempts"][0]["restart"].startswith(
            "replaced, not counted as a failure"), peer
    else:
        assert peer.get("attempt", 0) == 0, peer  # task scope: the peer on the other node runs on
    lost = rm_rest(conf_dir, "nodes?states=LOST")["nodes"] or {}
    assert stopped in [n["id"] for n in lost.get("node", [])], lost  # the RM's own view
    eventually(lambda: gone(victim_user), timeout=60, what="the lost node's user process gone")
    assert_nothing_left(app_id, timeout=30)
