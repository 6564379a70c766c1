"""Restart policies on the local engine (README "Restarts"): a task killed with -9 restarts with
its gang, a listed exit code restarts the task alone while its peer runs on untouched, and a used-up
budget fails the job saying so. Each leaves no process behind (checked by scanning /proc)."""
import json
import os
import signal

from tonytest import (SYSTEM_PYTHON, assert_nothing_left, eventually, gone, tony_xml, write)

# Attempt 0 of worker:1 records its pid and waits to be killed (or exits with FIRST_EXIT); every
# other attempt records what tony told it and exits 0 once the whole gang of its attempt is up.
SCRIPT = """
import os, sys, time
log = os.environ["TONY_LOG_DIR"]
attempt = int(os.environ["ATTEMPT_NUMBER"])
index = int(os.environ["TASK_INDEX"])
open(os.path.join(log, "user.pid"), "w").write(str(os.getpid()))
open(os.path.join(log, "seen"), "w").write(f"{index} {attempt}")
if index == 1 and attempt == 0:
    code = int(os.environ.get("FIRST_EXIT", "0"))
    if code:
        sys.exit(code)
    time.sleep(300)
if index == 1 and os.environ.get("ALWAYS_EXIT"):
    sys.exit(int(os.environ["ALWAYS_EXIT"]))
if index == 0 and os.environ.get("WAIT_FOR"):
    # The peer of a task-scope restart: runs until the test has seen it live across the restart.
    deadline = time.monotonic() + 60
    while not os.path.exists(os.environ["WAIT_FOR"]):
        if time.monotonic() > deadline:
            sys.exit(9)
        time.sleep(0.05)
time.sleep(float(os.environ.get("HOLD", "0")))
"""


def submit(tony, tmp_path, props, env=()):
    src = tmp_path / "src"
    write(str(src / "task.py"), SCRIPT)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "2", "tony.worker.memory": "256m",
        "tony.application.framework": "generic",
        "tony.worker.restart-backoff-ms": "200", **props})
    args = ["submit", "--executes", "task.py", "--python_binary_path", SYSTEM_PYTHON,
            "--src_dir", str(src), "--conf_file", conf]
    for e in env:
        args += ["--shell_env", e]
    return tony.start(*args)


def pid_file(task):
    try:
        return int(open(os.path.join(task["log_dir"], "user.pid")).read())
    except (OSError, ValueError):
        return None


def wait_for_attempt(tony, role, index, attempt):
    """The pid of `role:index`'s user process in attempt `attempt`, once it runs."""
    def running():
        try:
            t = tony.task(role, index)
            return t["attempt"] == attempt and pid_file(t)
        except (OSError, ValueError, KeyError, IndexError):
            return None
    return eventually(running, timeout=60, what=f"{role}:{index}'s attempt {attempt}")


def wait_for_user_process(tony, role, index):
    def running():
        try:
            return pid_file(tony.task(role, index))
        except (OSError, ValueError, KeyError, IndexError):
            return None
    return eventually(running, timeout=60, what=f"{role}:{index}'s user process")


def states_in_events(job_dir, task):
    """(attempt, state) pairs of `task` in events.jsonl, in order."""
    seen = []
    for line in open(os.path.join(job_dir, "events.jsonl")):
        e = json.loads(line)
        if e.get("task") == task:
            seen.append((e.get("attempt"), e.get("state")))
    return seen


def test_kill_9_of_a_user_process_restarts_its_gang_and_the_job_succeeds(tony, tmp_path):
    proc = submit(tony, tmp_path, {"tony.worker.restart-policy": "on-failure",
                                   "tony.worker.max-restarts": "2"}, env=["HOLD=1"])
    victim = wait_for_user_process(tony, "worker", 1)
    first_peer = wait_for_user_process(tony, "worker", 0)
    os.kill(victim, signal.SIGKILL)
    # A gang restart starts every process again: while the peer's second attempt runs (in its
    # own log dir), its first process is gone.
    second_peer = wait_for_attempt(tony, "worker", 0, 1)
    assert second_peer != first_peer and gone(first_peer), (first_peer, second_peer)
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, out + err
    assert "SUCCEEDED" in out
    status = tony.status()
    for index in (0, 1):
        t = tony.task("worker", index)
        assert t["attempt"] == 1 and t["state"] == "SUCCEEDED", t
        # The new attempt's own log dir, and what the script saw there.
        assert open(os.path.join(t["log_dir"], "seen")).read() == f"{index} 1"
    w1 = tony.task("worker", 1)
    assert w1["past_attempts"][0]["state"] == "FAILED"
    assert w1["past_attempts"][0]["signal"] == 9
    w0 = tony.task("worker", 0)
    assert w0["past_attempts"][0]["state"] == "STOPPED"
    assert "restarting the gang: task worker:1 failed: signal 9 (SIGKILL)" in \
        w0["past_attempts"][0]["end_reason"]
    assert pid_file(w0) == second_peer, w0
    assert w1["past_attempts"][0]["restart"].startswith(
        "restart 1 of 2 (tony.worker.max-restarts) in 200 ms, gang scope: task worker:1 failed")
    assert status["final_status"] == "SUCCEEDED"
    assert "ATTEMPT" in out  # the table shows attempts once a task restarted
    job_dir = tony.job_dir()
    assert states_in_events(job_dir, "worker:1")[-1] == (1, "SUCCEEDED")
    assert (0, "FAILED") in states_in_events(job_dir, "worker:1")
    am_log = open(os.path.join(job_dir, "am.log")).read()
    assert "worker:1 restarted: restart 1 of 2" in am_log
    assert_nothing_left(tony.home)


def test_a_listed_exit_code_restarts_the_task_alone_and_its_peer_runs_on(tony, tmp_path):
    proc = submit(tony, tmp_path, {"tony.worker.restart-policy": "exit-code",
                                   "tony.worker.restart-exit-codes": "75",
                                   "tony.worker.restart-scope": "task"},
                  env=["FIRST_EXIT=75", f"WAIT_FOR={tmp_path / 'go'}"])
    peer = wait_for_user_process(tony, "worker", 0)
    wait_for_attempt(tony, "worker", 1, 1)
    # The same process before and after the restart: the peer was not touched.
    assert not gone(peer), peer
    assert pid_file(tony.task("worker", 0)) == peer
    (tmp_path / "go").touch()
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, out + err
    w0, w1 = tony.task("worker", 0), tony.task("worker", 1)
    assert w0["attempt"] == 0 and not w0.get("past_attempts"), w0  # never touched
    assert w0["state"] == "SUCCEEDED" and pid_file(w0) == peer, w0
    assert w1["attempt"] == 1 and w1["state"] == "SUCCEEDED"
    assert w1["past_attempts"][0]["state"] == "FAILED"
    assert w1["past_attempts"][0]["exit_code"] == 75
    assert "task scope" in w1["past_attempts"][0]["restart"]
    assert_nothing_left(tony.home)


def test_an_exit_code_not_listed_fails_the_job_at_once(tony, tmp_path):
    proc = submit(tony, tmp_path, {"tony.worker.restart-policy": "exit-code",
                                   "tony.worker.restart-exit-codes": "75"},
                  env=["FIRST_EXIT=3", "HOLD=60"])
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 1, out + err
    assert "task worker:1 failed: exit 3" in out
    assert tony.task("worker", 1)["attempt"] == 0
    assert_nothing_left(tony.home)


def test_a_used_up_budget_fails_the_job_saying_so(tony, tmp_path):
    proc = submit(tony, tmp_path, {"tony.worker.restart-policy": "on-failure",
                                   "tony.worker.restart-scope": "task",
                                   "tony.worker.max-restarts": "1"},
                  env=["FIRST_EXIT=3", "ALWAYS_EXIT=4", "HOLD=60"])
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 1, out + err
    assert ("task worker:1 failed: exit 4; no restart left (tony.worker.max-restarts = 1, "
            "1 used)") in out
    w1 = tony.task("worker", 1)
    assert w1["attempt"] == 1 and w1["state"] == "FAILED" and w1["exit_code"] == 4
    assert w1["past_attempts"][0]["exit_code"] == 3
    assert_nothing_left(tony.home)


def executor_of(pid):
    """The `tony executor` process above `pid` (its user process)."""
    while pid > 1:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
        if any(a.endswith(b"tony") for a in argv) and b"executor" in argv:
            return pid
        with open(f"/proc/{pid}/stat") as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])
    raise AssertionError("no tony executor above the user process")


def test_a_lost_task_restarts_under_exit_code(tony, tmp_path):
    """README "Restarts": a LOST task (its executor killed, so its container ends without a
    report) is a retryable end under `exit-code` even with no exit code listed: it restarts, and
    the job succeeds."""
    proc = submit(tony, tmp_path, {"tony.worker.restart-policy": "exit-code",
                                   "tony.worker.restart-scope": "task",
                                   "tony.worker.max-restarts": "1"}, env=["HOLD=1"])
    victim = wait_for_user_process(tony, "worker", 1)
    executor = executor_of(victim)
    os.kill(executor, signal.SIGKILL)
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, out + err
    w1 = tony.task("worker", 1)
    assert w1["attempt"] == 1 and w1["state"] == "SUCCEEDED", w1
    lost = w1["past_attempts"][0]
    assert lost["state"] == "LOST", lost
    assert "without a report" in lost["end_reason"], lost
    assert lost["restart"].startswith("restart 1 of 1 (tony.worker.max-restarts)"), lost
    assert gone(victim) and gone(executor)
    assert_nothing_left(tony.home)


# A parameter server and a worker, as the ParameterServerStrategy pattern has them: ps:0's first
# attempt fails once the worker has read the spec; its second serves on its new port. The worker
# follows $TONY_CLUSTER_SPEC_FILE to the new address, without restarting.
PS_AND_WORKER = """
import json, os, socket, sys, time
d = sys.argv[1]
spec_file = os.environ["TONY_CLUSTER_SPEC_FILE"]
def read_spec():
    with open(spec_file) as f:
        return json.load(f)
if os.environ["JOB_NAME"] == "ps":
    port = int(read_spec()["cluster"]["ps"][0].rsplit(":", 1)[1])
    if os.environ["ATTEMPT_NUMBER"] == "0":
        while not os.path.exists(os.path.join(d, "worker-read-spec")):
            time.sleep(0.05)
        sys.exit(3)
    s = socket.socket()
    s.bind(("0.0.0.0", port))
    s.listen()
    while True:
        c, _ = s.accept()
        c.sendall(b"ps attempt 1")
        c.close()
first = read_spec()
open(os.path.join(d, "worker-pid"), "w").write(str(os.getpid()))
json.dump(first, open(os.path.join(d, "first-spec"), "w"))
open(os.path.join(d, "worker-read-spec"), "w").close()
deadline = time.monotonic() + 60
spec = first
while spec["generation"] == first["generation"]:
    if time.monotonic() > deadline:
        print("the spec file never changed", flush=True)
        sys.exit(9)
    time.sleep(0.1)
    spec = read_spec()
host, port = spec["cluster"]["ps"][0].rsplit(":", 1)
while True:
    try:
        with socket.create_connection((host, int(port)), timeout=5) as c:
            answer = c.recv(64).decode()
        break
    except OSError:
        if time.monotonic() > deadline:
            raise
        time.sleep(0.1)
json.dump(spec, open(os.path.join(d, "second-spec"), "w"))
print(f"worker reached ps:0 at {host}:{port}: {answer}", flush=True)
"""


def test_a_peer_follows_a_task_restarted_in_task_scope_to_its_new_address(tony, tmp_path):
    d = tmp_path / "shared"
    d.mkdir()
    src = tmp_path / "src"
    write(str(src / "task.py"), PS_AND_WORKER)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "tensorflow",
        "tony.ps.instances": "1", "tony.ps.memory": "256m",
        "tony.ps.restart-policy": "on-failure", "tony.ps.restart-scope": "task",
        "tony.ps.restart-backoff-ms": "100",
        "tony.worker.instances": "1", "tony.worker.memory": "256m",
        "tony.task.heartbeat-interval-ms": "200"})
    proc = tony.start("submit", "--executes", "task.py", "--task_params", str(d),
                      "--python_binary_path", SYSTEM_PYTHON, "--src_dir", str(src),
                      "--conf_file", conf)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    first = json.load(open(d / "first-spec"))
    second = json.load(open(d / "second-spec"))
    assert second["generation"] > first["generation"], (first, second)
    assert second["cluster"]["ps"] != first["cluster"]["ps"], (first, second)
    assert second["cluster"]["worker"] == first["cluster"]["worker"]
    ps, worker = tony.task("ps", 0), tony.task("worker", 0)
    assert ps["attempt"] == 1 and ps["past_attempts"][0]["exit_code"] == 3, ps
    assert f"{ps['host']}:{ps['port']}" == second["cluster"]["ps"][0], (ps, second)
    # The worker ran through: one attempt, the process that read the first spec.
    assert worker["attempt"] == 0 and worker["state"] == "SUCCEEDED", worker
    assert not worker.get("past_attempts"), worker
    logs = tony.run("logs", tony.jobs()[-1], "--task", "worker:0").stdout
    assert f"worker reached ps:0 at {second['cluster']['ps'][0]}: ps attempt 1" in logs, logs
    executor_log = tony.run("logs", tony.jobs()[-1], "--task", "worker:0", "--stream",
                            "executor").stdout
    assert f"ps:0 is now at {second['cluster']['ps'][0]}" in executor_log, executor_log
    assert_nothing_left(tony.home)
