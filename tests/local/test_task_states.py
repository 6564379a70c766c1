"""The task state model (README "Task states"), one job per row, each checked through every view
a user reads: the final table of `tony submit`, `tony status <id>`, status.json and events.jsonl.
Plus a forced Ctrl-C, a live table on an 80-column terminal, and the wording of odd jobs."""
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time

from tonytest import (TONY_BIN, assert_nothing_left, eventually, gone, job_id_from,
                      processes_mentioning, tony_xml)

LIVE_RANK = {"NEW": 0, "ALLOCATED": 1, "REGISTERED": 2, "RUNNING": 3}
ENDS = {"SUCCEEDED", "FAILED", "STOPPED", "NOT_STARTED", "LOST"}

# Shell snippets. The marker file says a task's user process runs, so the others can wait for
# it instead of sleeping.
READY = 'touch "$TONY_LOG_DIR/../../$JOB_NAME-$TASK_INDEX.ready"'


def wait_for(task):
    return f'until [ -e "$TONY_LOG_DIR/../../{task}.ready" ]; do sleep 0.02; done'


def conf(tmp_path, props):
    base = {"tony.application.framework": "generic", "tony.worker.memory": "128m"}
    base.update(props)
    return tony_xml(str(tmp_path / "tony.xml"), base)


def submit(tony, tmp_path, command, props):
    r = tony.run("submit", "--executes", command, "--conf_file", conf(tmp_path, props),
                 timeout=90)
    job_id = job_id_from(r.stdout)
    assert job_id, r.stdout + r.stderr
    return r, job_id


def exit_words(task):
    if task.get("signal", 0) > 0:
        return f"signal {task['signal']}"
    if "exit_code" in task:
        return f"exit {task['exit_code']}"
    return None


def events(tony, job_id):
    with open(os.path.join(tony.job_dir(job_id), "events.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def final_table_row(output, task):
    """The row of `task` ("worker:1") in the last task table of `output`."""
    role, index = task.split(":")
    table = output[output.rindex("ROLE"):]
    for line in table.splitlines()[1:]:
        words = line.split()
        if words[:2] == [role, index]:
            return line
    raise AssertionError(f"no row for {task} in:\n{table}")


def check_row(tony, r, job_id, task, state, exit_prefix=None, reason=None):
    """`task` ended in `state` (with an exit starting `exit_prefix`, a reason containing `reason`)
    in every view."""
    role, index = task.split(":")
    recorded = tony.task(role, int(index), job_id)
    assert recorded["state"] == state, recorded
    words = exit_words(recorded)
    if exit_prefix is None:
        assert words is None, recorded
    else:
        assert words and words.startswith(exit_prefix), recorded
    if reason is not None:
        assert reason in recorded["end_reason"], recorded
    assert recorded.get("exit_code", 0) >= 0 and "has_exit_code" not in recorded, recorded
    # events.jsonl: only forward, ending in the same state, with the same words.
    mine = [e for e in events(tony, job_id) if e.get("task") == task]
    ranks = [LIVE_RANK.get(e["state"], 4) for e in mine]
    assert ranks == sorted(ranks) and ranks.count(4) == 1, mine
    assert mine[-1]["state"] == state, mine
    if exit_prefix:
        assert mine[-1]["exit"].startswith(exit_prefix), mine
    if reason is not None:
        assert reason in mine[-1]["reason"], mine
    # The final table of `tony submit` and `tony status <id>` after the end.
    s = tony.run("status", job_id)
    for output in (r.stdout, s.stdout):
        row = final_table_row(output, task)
        assert f" {state} " in row, row
        if exit_prefix:
            assert exit_prefix in row, row
    return recorded


def check_job(tony, r, job_id, final, leftovers_s=10):
    status = tony.status(job_id)
    assert status["phase"] == "FINISHED" and status["final_status"] == final, status
    assert int(status["end_wall_ms"]) >= int(status["start_wall_ms"]) > 0, status
    assert all(t["state"] in ENDS for t in status["tasks"]), status["tasks"]
    last = events(tony, job_id)[-1]
    assert last["job"] == final, last
    assert r.returncode == (0 if final == "SUCCEEDED" else 1), r.stdout + r.stderr
    s = tony.run("status", job_id)
    assert s.returncode == r.returncode and final in s.stdout, s.stdout
    assert_nothing_left(tony.home, timeout=leftovers_s)


def test_a_task_that_exits_3_failed_and_the_one_tony_stopped_is_stopped(tony, tmp_path):
    r, job_id = submit(tony, tmp_path,
                       f'if [ $TASK_INDEX = 1 ]; then {wait_for("worker-0")}; echo bad >&2; exit 3;'
                       f' fi; {READY}; exec sleep 60', {"tony.worker.instances": "2"})
    assert "task worker:1 failed: exit 3" in r.stdout, r.stdout
    check_row(tony, r, job_id, "worker:1", "FAILED", "exit 3")
    check_row(tony, r, job_id, "worker:0", "STOPPED", "signal 15",
              "the job failed: task worker:1 failed: exit 3")
    # Piped output shows the final transitions too, not only the last table.
    assert re.search(r"^  worker:0 STOPPED .*signal 15 \(SIGTERM\)", r.stdout, re.M), r.stdout
    check_job(tony, r, job_id, "FAILED")


def test_a_task_killed_by_a_signal_tony_did_not_send_failed_with_the_signal(tony, tmp_path):
    r, job_id = submit(tony, tmp_path, "kill -9 $$", {"tony.worker.instances": "1"})
    t = check_row(tony, r, job_id, "worker:0", "FAILED", "signal 9", "SIGKILL not sent by tony")
    assert "exit_code" not in t
    assert "task worker:0 failed: signal 9 (SIGKILL); SIGKILL not sent by tony" in r.stdout
    assert "exit code 137" not in r.stdout
    check_job(tony, r, job_id, "FAILED")


def test_a_task_stopped_because_the_chief_succeeded(tony, tmp_path):
    r, job_id = submit(tony, tmp_path,
                       f'if [ $JOB_NAME = chief ]; then {wait_for("worker-0")}; exit 0; fi;'
                       f' {READY}; exec sleep 60',
                       {"tony.chief.instances": "1", "tony.chief.memory": "128m",
                        "tony.worker.instances": "1"})
    check_row(tony, r, job_id, "chief:0", "SUCCEEDED", "exit 0")
    check_row(tony, r, job_id, "worker:0", "STOPPED", "signal 15",
              "the job succeeded (chief task chief:0 succeeded)")
    hist = [e for e in events(tony, job_id) if e.get("task") == "worker:0"][-1]
    assert hist["history_status"] == "KILLED", hist
    check_job(tony, r, job_id, "SUCCEEDED")


def test_tasks_stopped_before_their_user_process_ran_never_started(tony, tmp_path):
    # A 1 ms gang allocation timeout: no executor can register that fast, so the job fails
    # while its tasks are NEW or ALLOCATED, and no user process may run.
    r, job_id = submit(tony, tmp_path, f"{READY}; sleep 60", {"tony.worker.instances": "2",
                       "tony.container.allocation.timeout": "1"})
    for task in ("worker:0", "worker:1"):
        check_row(tony, r, job_id, task, "NOT_STARTED", None,
                  "the job failed: only 0 of 2 tasks registered within 1 ms")
    tasks_dir = os.path.join(tony.job_dir(job_id), "tasks")
    assert not os.path.isdir(tasks_dir) or not [
        f for f in os.listdir(tasks_dir) if f.endswith(".ready")], "a user process ran"
    check_job(tony, r, job_id, "FAILED")


def start(tony, tmp_path, command, props):
    proc = tony.start("submit", "--executes", command, "--conf_file", conf(tmp_path, props))
    eventually(lambda: tony.jobs() and os.path.exists(os.path.join(tony.job_dir(), "status.json")),
               timeout=30, what="the job's status")
    return proc


def executor_pid(tony, task):
    role, index = task.split(":")
    log_dir = tony.task(role, int(index))["log_dir"]
    for pid, cmd in processes_mentioning(tony.home):
        if cmd.strip().endswith(f"executor --log-dir {log_dir}"):
            return pid
    raise AssertionError(f"no executor for {task}")


def all_ready(tony, n):
    try:
        tasks = tony.status()["tasks"]
    except (OSError, ValueError, KeyError):
        return False
    return len(tasks) == n and all(
        os.path.exists(os.path.join(t["log_dir"], "..", "..", f"{t['role']}-{t['index']}.ready"))
        for t in tasks)


class Finished:
    def __init__(self, proc):
        out, err = proc.communicate(timeout=60)
        self.returncode, self.stdout, self.stderr = proc.returncode, out, err


def test_a_task_whose_heartbeat_stops_is_lost(tony, tmp_path):
    # One task only: no healthy executor can be declared lost first on a loaded machine.
    proc = start(tony, tmp_path, f"{READY}; exec sleep 60", {"tony.worker.instances": "1",
                 "tony.task.heartbeat-interval-ms": "250",
                 "tony.task.max-missed-heartbeats": "4"})
    eventually(lambda: all_ready(tony, 1), timeout=30, what="the user process")
    job_id = tony.jobs()[-1]
    os.kill(executor_pid(tony, "worker:0"), signal.SIGSTOP)  # alive, but silent
    r = Finished(proc)
    t = check_row(tony, r, job_id, "worker:0", "LOST", None, "no heartbeat for 1000 ms")
    assert "exit_code" not in t and t.get("signal", 0) == 0
    assert "task worker:0 lost: no heartbeat for 1000 ms" in r.stdout
    check_job(tony, r, job_id, "FAILED")


def test_a_task_whose_executor_vanished_without_a_report_is_lost(tony, tmp_path):
    proc = start(tony, tmp_path, f"{READY}; exec sleep 60", {"tony.worker.instances": "1"})
    eventually(lambda: all_ready(tony, 1), timeout=30, what="the user process")
    job_id = tony.jobs()[-1]
    os.kill(executor_pid(tony, "worker:0"), signal.SIGKILL)
    r = Finished(proc)
    check_row(tony, r, job_id, "worker:0", "LOST", None,
              "its container ended without a report (executor killed by signal 9")
    check_job(tony, r, job_id, "FAILED")


def test_a_forced_ctrl_c_still_writes_a_consistent_final_record(tony, tmp_path):
    # The user processes ignore SIGTERM, so the first Ctrl-C's stop takes the executors' 5 s grace:
    # the second one forces the end meanwhile.
    proc = start(tony, tmp_path, f"trap '' TERM; {READY}; sleep 60 & wait",
                 {"tony.worker.instances": "2"})
    eventually(lambda: all_ready(tony, 2), timeout=30, what="both user processes")
    job_id = tony.jobs()[-1]
    os.killpg(proc.pid, signal.SIGINT)
    eventually(lambda: tony.status(job_id)["phase"] == "STOPPING", timeout=10,
               what="the job to stop")
    os.killpg(proc.pid, signal.SIGINT)
    r = Finished(proc)
    assert "forced" in r.stdout, r.stdout + r.stderr
    for task in ("worker:0", "worker:1"):
        check_row(tony, r, job_id, task, "STOPPED", None, "forced stop")
    status = tony.status(job_id)
    assert status["message"] == "killed by user (Ctrl-C twice in tony submit: forced)", status
    # Its executors still stop their user processes (after their kill grace) and exit.
    check_job(tony, r, job_id, "KILLED", leftovers_s=30)


def test_sigterm_to_submit_is_not_called_ctrl_c(tony, tmp_path):
    proc = start(tony, tmp_path, f"{READY}; exec sleep 60", {"tony.worker.instances": "1"})
    eventually(lambda: all_ready(tony, 1), timeout=30, what="the user process")
    job_id = tony.jobs()[-1]
    os.kill(proc.pid, signal.SIGTERM)
    r = Finished(proc)
    assert "SIGTERM received" in r.stderr, r.stderr
    assert "Ctrl-C" not in r.stdout + r.stderr, r.stdout + r.stderr
    check_row(tony, r, job_id, "worker:0", "STOPPED", "signal 15",
              "killed by SIGTERM to tony submit")
    check_job(tony, r, job_id, "KILLED")


def test_a_second_sigterm_to_submit_forces_the_end(tony, tmp_path):
    # README: "A second Ctrl-C (or SIGTERM) forces the end". The user processes ignore SIGTERM,
    # so without the force the stop would take the executors' 5 s grace.
    proc = start(tony, tmp_path, f"trap '' TERM; {READY}; sleep 60 & wait",
                 {"tony.worker.instances": "2"})
    eventually(lambda: all_ready(tony, 2), timeout=30, what="both user processes")
    job_id = tony.jobs()[-1]
    os.kill(proc.pid, signal.SIGTERM)
    eventually(lambda: tony.status(job_id)["phase"] == "STOPPING", timeout=10,
               what="the job to stop")
    os.kill(proc.pid, signal.SIGTERM)
    # Forced, not waited out: the tasks' words below say tony did not wait for them (a stop that
    # waited the grace out would end them by SIGKILL with the job's first reason). No time bound
    # is asserted: timing belongs in bench/.
    r = Finished(proc)
    assert "a second SIGTERM or SIGINT forces it" in r.stderr, r.stderr
    assert "Ctrl-C" not in r.stdout + r.stderr, r.stdout + r.stderr
    reason = "killed by SIGTERM to tony submit (forced by a second signal)"
    status = tony.status(job_id)
    assert status["message"] == reason, status
    for task in ("worker:0", "worker:1"):
        check_row(tony, r, job_id, task, "STOPPED", None,
                  "forced stop: tony did not wait for the task to end")
    job_lines = [e for e in events(tony, job_id) if "job" in e]
    assert job_lines and job_lines[-1]["job"] == "KILLED", job_lines
    # Its executors still stop their user processes (after their kill grace) and exit.
    check_job(tony, r, job_id, "KILLED", leftovers_s=30)


def test_an_executor_that_gets_sighup_stops_its_task(tony, tmp_path):
    # README: an executor that gets SIGHUP (a closed terminal on the local engine) stops its task
    # the same way as on SIGTERM; tony did not send it, so the task FAILED, saying so.
    proc = start(tony, tmp_path, f'echo $$ > "$TONY_LOG_DIR/user.pid"; {READY}; exec sleep 60',
                 {"tony.worker.instances": "1"})
    eventually(lambda: all_ready(tony, 1), timeout=30, what="the user process")
    job_id = tony.jobs()[-1]
    user = int(open(os.path.join(tony.task("worker", 0)["log_dir"], "user.pid")).read())
    executor = executor_pid(tony, "worker:0")
    assert "tony executor" in open(f"/proc/{executor}/cmdline", "rb").read().replace(
        b"\0", b" ").decode(), executor
    os.kill(executor, signal.SIGHUP)
    r = Finished(proc)
    t = check_row(tony, r, job_id, "worker:0", "FAILED", "signal 15",
                  "its executor was stopped by a signal tony did not send")
    assert t["diagnostics"] == "stopped by signal 1", t
    assert gone(user), user
    check_job(tony, r, job_id, "FAILED")
    assert_nothing_left(tony.home)


def test_only_untracked_roles_and_an_untracked_name_that_is_no_role(tony, tmp_path):
    r, job_id = submit(tony, tmp_path, "true", {"tony.worker.instances": "0",
                       "tony.ps.instances": "2", "tony.ps.memory": "128m",
                       "tony.application.untracked.jobtypes": "ps,pss"})
    assert ("tony.application.untracked.jobtypes names 'pss', which is no role of this job"
            in r.stderr), r.stderr
    assert "did you mean 'ps'?" in r.stderr, r.stderr
    assert "all 2 task(s) succeeded (the job has no tracked task)" in r.stdout, r.stdout
    assert "tracked task(s) succeeded" not in r.stdout
    check_job(tony, r, job_id, "SUCCEEDED")


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_the_live_table_fits_an_80_column_terminal(tony, tmp_path):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    proc = subprocess.Popen(
        [TONY_BIN, "submit", "--executes", "sleep 1", "--conf_file",
         conf(tmp_path, {"tony.worker.instances": "3"})],
        env=tony.env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
    os.close(slave)
    out = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the other side closed
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=10)
    os.close(master)
    text = out.decode(errors="replace")
    assert proc.returncode == 0, text
    rows = [ANSI.sub("", line).rstrip("\r") for line in re.split(r"\n", text)]
    table = [line for line in rows
             if line.startswith("ROLE") or re.match(r"worker\s+\d\s", line)]
    assert len(table) >= 4, text
    for line in table:
        assert len(line) <= 80, f"{len(line)} columns: {line!r}"
    # The log dirs (longer than the room left) were cut, keeping their ends.
    assert any("..." in line and "attempt-0" in line for line in table), table
