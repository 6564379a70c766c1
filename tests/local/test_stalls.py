"""Stalls on the local engine (README "Stalls"): a real Python task that goes silent inside a named
function is STALLED after tony.worker.stall-timeout-ms; on-stall=fail fails the job with its Python
stack, on-stall=warn shows STALLED until it prints again. A task that prints, or touches
$TONY_PROGRESS_FILE, more often than the timeout is never STALLED. Stacks that stacks.txt cannot
take are said to be lost, and still shown. Each leaves no process behind (checked by scanning
/proc)."""
import json
import os
import re

from tonytest import SYSTEM_PYTHON, assert_nothing_left, eventually, tony_xml, write

TIMEOUT_MS = 2000

# MODE picks what the task does; the test drives it through marker files in its log dir, so no
# step depends on how long another takes.
SCRIPT = """
import os, sys, time
log = os.environ["TONY_LOG_DIR"]
mode = os.environ["MODE"]


def stuck_in_allreduce():
    while True:
        time.sleep(3600)


def child_waits_for_parent():
    while True:
        time.sleep(3600)


def wait_quietly_for(name):
    while not os.path.exists(os.path.join(log, name)):
        time.sleep(0.05)


print("started")
if mode == "hang":  # and a forked child (a DataLoader worker, say) hangs too
    if os.fork() == 0:
        child_waits_for_parent()
    stuck_in_allreduce()
elif mode == "hang_unkept":  # hangs where stacks.txt cannot be written (a directory stands there)
    os.mkdir(os.path.join(log, "stacks.txt"))
    stuck_in_allreduce()
elif mode == "chatty":  # prints every 0.2 s for 2.5 timeouts
    for step in range(25):
        print("step", step)
        time.sleep(0.2)
elif mode == "progress":  # no output, but touches the progress file
    for step in range(25):
        os.utime(os.environ["TONY_PROGRESS_FILE"])
        time.sleep(0.2)
elif mode == "pause":  # silent until the test says resume, then prints until it says finish
    wait_quietly_for("resume")
    while not os.path.exists(os.path.join(log, "finish")):
        print("resumed")
        time.sleep(0.1)
"""


def submit(tony, tmp_path, mode, on_stall, props=None):
    src = tmp_path / "src"
    write(str(src / "task.py"), SCRIPT)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "1", "tony.worker.memory": "256m",
        "tony.application.framework": "generic",
        "tony.worker.stall-timeout-ms": str(TIMEOUT_MS), "tony.worker.on-stall": on_stall,
        **(props or {})})
    return tony.start("submit", "--executes", "task.py", "--python_binary_path", SYSTEM_PYTHON,
                      "--src_dir", str(src), "--conf_file", conf, "--shell_env", f"MODE={mode}")


def states_in_events(job_dir, task):
    seen = []
    for line in open(os.path.join(job_dir, "events.jsonl")):
        e = json.loads(line)
        if e.get("task") == task:
            seen.append(e["state"])
    return seen


def task_state(tony):
    try:
        return tony.task("worker", 0)["state"]
    except (OSError, ValueError, KeyError, IndexError):
        return None  # no job yet, or its status.json being written


def test_a_silent_task_fails_the_job_with_its_python_stack(tony, tmp_path):
    proc = submit(tony, tmp_path, "hang", "fail")
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 1, out + err
    assert "task worker:0 failed: signal 15 (SIGTERM); stalled: no output or progress for" in out
    # The key, its value and the file that set it.
    assert f"(tony.worker.stall-timeout-ms = 2000, from {tmp_path / 'tony.xml'}); main thread of pid" \
        in out, out
    assert " in stuck_in_allreduce at task.py:" in out
    assert re.search(r'task\.py", line \d+ in stuck_in_allreduce\n', out), out  # the stack itself
    # The forked child answers for itself, in its own section.
    assert out.count("\n--- pid ") == 2 and "no stacks from pid" not in out, out
    assert re.search(r'task\.py", line \d+ in child_waits_for_parent\n', out), out
    w0 = tony.task("worker", 0)
    assert w0["state"] == "FAILED" and w0["signal"] == 15, w0
    assert w0["end_reason"].startswith("stalled: no output or progress"), w0
    assert "in stuck_in_allreduce" in w0["stall"]
    stacks = open(os.path.join(w0["log_dir"], "stacks.txt")).read()
    assert "in stuck_in_allreduce" in stacks
    assert states_in_events(tony.job_dir(), "worker:0")[-2:] == ["STALLED", "FAILED"]
    assert tony.status()["final_status"] == "FAILED"
    assert_nothing_left(tony.home)


def test_stacks_that_cannot_be_kept_are_said_and_still_shown(tony, tmp_path):
    proc = submit(tony, tmp_path, "hang_unkept", "fail")
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 1, out + err
    w0 = tony.task("worker", 0)
    stacks_txt = os.path.join(w0["log_dir"], "stacks.txt")
    assert f"; stacks not kept: cannot write {stacks_txt}: Is a directory" in w0["stall"], w0
    assert f"stacks in {stacks_txt}" not in out, out
    # The message carries the stack all the same.
    assert re.search(r'task\.py", line \d+ in stuck_in_allreduce\n', out), out
    assert_nothing_left(tony.home)


def test_restart_runs_a_silent_task_again_until_its_budget_is_spent(tony, tmp_path):
    proc = submit(tony, tmp_path, "hang", "restart",
                  {"tony.worker.max-restarts": "1", "tony.worker.restart-backoff-ms": "200"})
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 1, out + err
    assert "; no restart left (tony.worker.max-restarts = 1, 1 used)\n" in out
    w0 = tony.task("worker", 0)
    assert w0["attempt"] == 1 and w0["state"] == "FAILED", w0
    past = w0["past_attempts"][0]
    assert past["state"] == "FAILED" and past["end_reason"].startswith("stalled: "), past
    assert past["restart"].startswith("restart 1 of 1 (tony.worker.max-restarts) in 200 ms"), past
    assert_nothing_left(tony.home)


def test_a_task_that_prints_more_often_than_the_timeout_is_never_stalled(tony, tmp_path):
    proc = submit(tony, tmp_path, "chatty", "fail")
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, out + err
    assert "STALLED" not in states_in_events(tony.job_dir(), "worker:0")
    assert "step 24" in open(os.path.join(tony.task("worker", 0)["log_dir"], "stdout")).read()
    assert_nothing_left(tony.home)


def test_touching_the_progress_file_is_progress_without_output(tony, tmp_path):
    proc = submit(tony, tmp_path, "progress", "fail")
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, out + err
    assert "STALLED" not in states_in_events(tony.job_dir(), "worker:0")
    assert_nothing_left(tony.home)


def test_warn_shows_stalled_until_the_task_prints_again_and_the_job_succeeds(tony, tmp_path):
    proc = submit(tony, tmp_path, "pause", "warn")
    try:
        eventually(lambda: task_state(tony) == "STALLED", timeout=60, what="worker:0 STALLED")
        job_id = tony.jobs()[-1]
        status = tony.run("status", job_id)
        assert status.returncode == 0, status.stdout + status.stderr
        row = next(line for line in status.stdout.splitlines()
                   if line.split()[:2] == ["worker", "0"])
        assert "STALLED" in row and "stalled: no output or progress for" in row, status.stdout
        w0 = tony.task("worker", 0)
        assert " in wait_quietly_for at task.py:" in w0["stall"], w0
        assert "in wait_quietly_for" in open(os.path.join(w0["log_dir"], "stacks.txt")).read()

        write(os.path.join(w0["log_dir"], "resume"), "")
        eventually(lambda: task_state(tony) == "RUNNING", timeout=30, what="worker:0 RUNNING again")
        assert not tony.task("worker", 0).get("stall"), tony.task("worker", 0)
        write(os.path.join(w0["log_dir"], "finish"), "")
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    assert "SUCCEEDED" in out
    events = states_in_events(tony.job_dir(), "worker:0")
    stalled = events.index("STALLED")
    assert events[stalled - 1:] == ["RUNNING", "STALLED", "RUNNING", "SUCCEEDED"], events
    assert_nothing_left(tony.home)
