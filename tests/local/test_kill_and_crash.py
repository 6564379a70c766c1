"""Killing things: a task's process, an executor, the whole job with `tony kill`, and Ctrl-C in
`tony submit`. Each must end the job with a clear result and leave no process behind (checked by
scanning /proc, not by asking tony)."""
import json
import os
import signal
import time

from tonytest import (SYSTEM_PYTHON, assert_nothing_left, eventually, gone, job_id_from,
                      processes_mentioning, tony_xml, write)

# user.pid appears whole (written aside, then renamed): a test that sees it may read it.
SLEEPER = """
import os, time
pid_file = os.path.join(os.environ["TONY_LOG_DIR"], "user.pid")
with open(pid_file + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(pid_file + ".tmp", pid_file)
time.sleep(300)
"""


def start_sleepers(tony, tmp_path, instances=2):
    src = tmp_path / "src"
    write(str(src / "sleep.py"), SLEEPER)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": str(instances), "tony.worker.memory": "256m",
        "tony.application.framework": "generic"})
    proc = tony.start("submit", "--executes", "sleep.py", "--python_binary_path", SYSTEM_PYTHON,
                      "--src_dir", str(src), "--conf_file", conf)
    eventually(lambda: tony.jobs(), what="a job dir")
    job_dir = tony.job_dir()

    def all_running():
        try:
            return all(os.path.exists(os.path.join(t["log_dir"], "user.pid"))
                       for t in tony.status()["tasks"]) and len(tony.status()["tasks"]) == instances
        except (OSError, ValueError, KeyError):
            return False
    eventually(all_running, timeout=60, what="every user process to start")
    return proc, job_dir


def user_pid(tony, role, index):
    return int(open(os.path.join(tony.task(role, index)["log_dir"], "user.pid")).read())


def executor_pid(tony, index):
    # tony's processes are not dumpable (their environ is unreadable); the local engine puts the
    # task's log dir on the executor's command line.
    log_dir = tony.task("worker", index)["log_dir"]
    for pid, cmd in processes_mentioning(tony.home):
        if cmd.strip().endswith(f"executor --log-dir {log_dir}"):
            return pid
    raise AssertionError(f"no executor for worker:{index}")


def finish(proc, timeout=60):
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def test_kill_9_of_a_user_process_fails_the_job_naming_the_task(tony, tmp_path):
    proc, _ = start_sleepers(tony, tmp_path)
    os.kill(user_pid(tony, "worker", 1), signal.SIGKILL)
    rc, out, err = finish(proc)
    assert rc == 1, out + err
    assert "task worker:1 failed: signal 9 (SIGKILL)" in out
    assert tony.task("worker", 1)["state"] == "FAILED"
    assert_nothing_left(tony.home)


def test_kill_9_of_an_executor_fails_the_job_and_kills_its_user_process(tony, tmp_path):
    proc, _ = start_sleepers(tony, tmp_path)
    orphan = user_pid(tony, "worker", 0)
    os.kill(executor_pid(tony, 0), signal.SIGKILL)
    rc, out, err = finish(proc)
    assert rc == 1, out + err
    assert "worker:0" in out and "FAILED" in out
    assert "killed by signal 9" in out
    assert_nothing_left(tony.home)
    assert gone(orphan)


def test_tony_kill_stops_the_job_and_everything_it_started(tony, tmp_path):
    proc, job_dir = start_sleepers(tony, tmp_path)
    job_id = os.path.basename(job_dir)
    k = tony.run("kill", job_id)
    assert k.returncode == 0, k.stdout + k.stderr
    assert "KILLED" in k.stdout
    rc, out, err = finish(proc)
    assert rc == 1
    assert "KILLED" in out and "tony kill" in out
    assert tony.status(job_id)["final_status"] == "KILLED"
    assert_nothing_left(tony.home)


def test_ctrl_c_in_submit_kills_the_job(tony, tmp_path):
    proc, job_dir = start_sleepers(tony, tmp_path)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal sends to the foreground job
    rc, out, err = finish(proc)
    assert rc == 1, out + err
    assert "KILLED" in out
    assert tony.status()["final_status"] == "KILLED"
    assert_nothing_left(tony.home)


def test_a_job_outlives_a_client_killed_with_9_and_ends_by_itself(tony, tmp_path):
    # Like a YARN application: with its client gone, the job still runs to its own end.
    src = tmp_path / "src"
    go = tmp_path / "go"
    write(str(src / "wait.py"), f"""
import os, time
open(os.path.join(os.environ["TONY_LOG_DIR"], "user.pid"), "w").write(str(os.getpid()))
while not os.path.exists({str(go)!r}):
    time.sleep(0.05)
""")
    # With no client left to read the end, the coordinator waits this long (TonY's key, default
    # 15 s) and exits: within assert_nothing_left's 10 s only if the key is applied.
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "2", "tony.worker.memory": "256m",
        "tony.application.framework": "generic",
        "tony.am.wait-client-signal-stop-timeout-sec": "1"})
    proc = tony.start("submit", "--executes", "wait.py", "--python_binary_path", SYSTEM_PYTHON,
                      "--src_dir", str(src), "--conf_file", conf)
    def both_started():
        try:
            tasks = tony.status()["tasks"]
        except (IndexError, OSError, ValueError, KeyError):
            return False
        return len(tasks) == 2 and all(
            os.path.exists(os.path.join(t["log_dir"], "user.pid")) for t in tasks)
    eventually(both_started, timeout=60, what="both user processes")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    go.touch()  # only now may the tasks end: after their client is gone
    eventually(lambda: tony.status()["phase"] == "FINISHED", timeout=60, what="the job's end")
    status = tony.status()
    assert status["final_status"] == "SUCCEEDED", status
    assert [t["state"] for t in status["tasks"]] == ["SUCCEEDED", "SUCCEEDED"], status
    assert_nothing_left(tony.home)


def test_kill_9_of_the_client_leaves_the_job_running_and_tony_kill_ends_it(tony, tmp_path):
    # Like a YARN application, a job outlives its client; it is stopped on purpose.
    proc, job_dir = start_sleepers(tony, tmp_path)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    assert tony.status()["phase"] == "RUNNING"
    s = tony.run("status", os.path.basename(job_dir))
    assert s.returncode == 0 and "RUNNING" in s.stdout
    k = tony.run("kill", os.path.basename(job_dir))
    assert k.returncode == 0 and "KILLED" in k.stdout
    assert_nothing_left(tony.home)


def test_kill_9_of_the_coordinator_leaves_nothing_behind(tony, tmp_path):
    proc, job_dir = start_sleepers(tony, tmp_path)
    am_pid = [p for p, cmd in processes_mentioning(tony.home) if " am --job-dir " in cmd][0]
    os.kill(am_pid, signal.SIGKILL)
    rc, out, err = finish(proc)
    assert rc == 1, out + err
    assert "the coordinator died unexpectedly" in out, out
    # README's task-state table: a task the dead coordinator left unended is LOST with these words.
    for t in tony.status()["tasks"]:
        assert t["state"] == "LOST" and t["end_reason"] == "lost: the coordinator died", t
    assert "lost: the coordinator died" in out, out
    assert_nothing_left(tony.home)


def test_a_frozen_executor_is_declared_lost_by_heartbeat_and_cleaned_up(tony, tmp_path):
    # One task: with a 1 s expiry, a healthy second executor could be declared lost first on a
    # loaded machine (the ASan pass runs two tests at once on two cores).
    src = tmp_path / "src"
    write(str(src / "sleep.py"), SLEEPER)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "1", "tony.worker.memory": "256m",
        "tony.application.framework": "generic", "tony.task.heartbeat-interval-ms": "250",
        "tony.task.max-missed-heartbeats": "4"})
    proc = tony.start("submit", "--executes", "sleep.py", "--python_binary_path", SYSTEM_PYTHON,
                      "--src_dir", str(src), "--conf_file", conf)
    eventually(lambda: tony.jobs() and os.path.exists(os.path.join(tony.job_dir(), "status.json"))
               and all(t["state"] == "RUNNING" for t in tony.status()["tasks"]), timeout=60,
               what="the task running")
    frozen = executor_pid(tony, 0)
    os.kill(frozen, signal.SIGSTOP)  # alive, but silent: no more heartbeats
    rc, out, err = finish(proc)
    assert rc == 1, out + err
    assert "task worker:0 lost: no heartbeat for 1000 ms" in out
    assert_nothing_left(tony.home)


def test_status_notices_a_dead_coordinator_after_its_client_died(tony, tmp_path):
    # Before: `tony status` showed RUNNING forever (exit 0) with nothing running.
    proc, job_dir = start_sleepers(tony, tmp_path)
    job_id = os.path.basename(job_dir)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    am_pid = json.load(open(os.path.join(job_dir, "am.json")))["pid"]
    os.kill(am_pid, signal.SIGKILL)
    eventually(lambda: gone(am_pid), what="the coordinator to die")
    s = tony.run("status", job_id)
    assert s.returncode == 1, s.stdout + s.stderr
    assert f"coordinator (pid {am_pid}) died without recording the job's end" in s.stdout
    assert "FAILED" in s.stdout and "RUNNING" not in s.stdout, s.stdout
    recorded = tony.status(job_id)
    assert recorded["phase"] == "FINISHED" and recorded["final_status"] == "FAILED"
    assert {t["state"] for t in recorded["tasks"]} <= {"LOST", "SUCCEEDED", "FAILED", "STOPPED"}
    assert "LOST" in {t["state"] for t in recorded["tasks"]}
    listed = tony.run("status")
    assert job_id in listed.stdout and "FAILED" in listed.stdout, listed.stdout
    assert_nothing_left(tony.home)


def test_a_daemon_that_left_the_session_is_killed_with_its_task(tony, tmp_path):
    # `setsid` puts sleep in a session and group of its own, out of reach of a group or session
    # kill; the executor, a child subreaper, still finds it when the task ends.
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "1", "tony.worker.memory": "256m",
        "tony.application.framework": "generic"})
    r = tony.run("submit", "--executes", "setsid sleep 97 & sleep 0.2; echo started",
                 "--conf_file", conf)
    assert r.returncode == 0, r.stdout + r.stderr
    assert_nothing_left(tony.home)
    assert not [p for p in processes_mentioning("sleep 97") if "sleep 97" in p[1]]


def test_a_stopped_coordinator_is_declared_lost_at_the_configured_time(tony, tmp_path):
    # 3 missed 2 s heartbeats: executors give up 6 s after the coordinator's last answer (within
    # one interval), not after 3 x (a call's deadline + the interval); the client says so too.
    src = tmp_path / "src"
    write(str(src / "sleep.py"), SLEEPER)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "2", "tony.worker.memory": "256m",
        "tony.application.framework": "generic", "tony.task.heartbeat-interval-ms": "2000",
        "tony.task.max-missed-heartbeats": "3"})
    proc = tony.start("submit", "--executes", "sleep.py", "--python_binary_path", SYSTEM_PYTHON,
                      "--src_dir", str(src), "--conf_file", conf)
    eventually(lambda: tony.running_job(tasks=2) and all(
        os.path.exists(os.path.join(t["log_dir"], "user.pid")) for t in tony.status()["tasks"]),
        timeout=60, what="both user processes")
    users = [user_pid(tony, "worker", i) for i in (0, 1)]
    am_pid = [p for p, cmd in processes_mentioning(tony.home) if " am --job-dir " in cmd][0]
    # The client applies the same bound and would kill the silent coordinator, whose death ends
    # the executors too: stopped meanwhile, it leaves the executors to find the loss themselves.
    os.kill(proc.pid, signal.SIGSTOP)
    stopped = time.monotonic()
    os.kill(am_pid, signal.SIGSTOP)
    try:
        eventually(lambda: not any(processes_alive(users)), timeout=30,
                   what="the executors to stop their user processes")
        took = time.monotonic() - stopped
        # Never before the configured loss (within one interval); how soon after is the
        # executor's own message below (a timed upper bound would measure the machine's load).
        assert took >= 6 - 2 - 0.5, took
        os.kill(proc.pid, signal.SIGCONT)
        rc, out, err = finish(proc, timeout=30)
    finally:
        for pid, sig in ((proc.pid, signal.SIGCONT), (am_pid, signal.SIGKILL)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
    assert rc == 1, out + err
    assert "the coordinator was unresponsive for 6 s" in out, out
    # Each executor says why it stopped its task and which keys (set where) made it give up.
    for i in (0, 1):
        log = open(os.path.join(tony.task("worker", i)["log_dir"], "executor.log")).read()
        assert ("lost contact with the coordinator: no answer to 3 heartbeat(s), 6000 ms "
                f"(tony.task.max-missed-heartbeats, from {conf}, tony.task.heartbeat-interval-ms, "
                f"from {conf})") in log, log
    assert_nothing_left(tony.home)


def processes_alive(pids):
    alive = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                alive.append(f.read().rsplit(")", 1)[1].split()[0] != "Z")
        except OSError:
            alive.append(False)
    return alive


def test_a_daemon_of_a_task_whose_executor_was_killed_is_killed_at_the_end(tony, tmp_path):
    # kill -9 of the executor: its subreaper role dies with it, so the daemon is reparented to
    # the coordinator (the local engine's subreaper), which kills it when the job ends.
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "2", "tony.worker.memory": "256m",
        "tony.application.framework": "generic"})
    proc = tony.start("submit", "--executes",
                      # Written whole, then renamed: the test must never read a half-written
                      # file (an empty one was read once under load).
                      'setsid sleep 98 & echo $! > "$TONY_LOG_DIR/daemon.tmp" && '
                      'mv "$TONY_LOG_DIR/daemon.tmp" "$TONY_LOG_DIR/daemon.pid"; exec sleep 300',
                      "--conf_file", conf)
    eventually(lambda: tony.running_job(tasks=2) and all(
        os.path.exists(os.path.join(t["log_dir"], "daemon.pid")) for t in tony.status()["tasks"]),
        timeout=60, what="both daemons")
    daemons = [int(open(os.path.join(tony.task("worker", i)["log_dir"], "daemon.pid")).read())
               for i in (0, 1)]
    os.kill(executor_pid(tony, 0), signal.SIGKILL)
    rc, out, err = finish(proc)
    assert rc == 1, out + err
    assert_nothing_left(tony.home)
    assert not any(processes_alive(daemons)), daemons
