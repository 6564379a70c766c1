"""TonY's session retry (tony.am.retry-count; README "Restarts"): a job that FAILED starts again
from its first stage, every task in a new attempt with NUM_AM_RETRIES in its environment, until
the retries are spent. Each run leaves no process behind (checked by scanning /proc)."""
import json
import os

from tonytest import SYSTEM_PYTHON, assert_nothing_left, tony_xml, write

# worker:1 fails (exit 3) in the first FAIL_SESSIONS sessions; every task records what tony told
# it.
SCRIPT = """
import json, os, sys
log = os.environ["TONY_LOG_DIR"]
index = int(os.environ["TASK_INDEX"])
retry = os.environ.get("NUM_AM_RETRIES")
json.dump({"NUM_AM_RETRIES": retry, "ATTEMPT_NUMBER": os.environ["ATTEMPT_NUMBER"]},
          open(os.path.join(log, "env.json"), "w"))
if index == 1 and int(retry or 0) < int(os.environ["FAIL_SESSIONS"]):
    sys.exit(3)
"""


def run(tony, tmp_path, retries, fail_sessions):
    src = tmp_path / "src"
    write(str(src / "task.py"), SCRIPT)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "2", "tony.worker.memory": "256m",
        "tony.application.framework": "generic", "tony.am.retry-count": str(retries)})
    r = tony.run("submit", "--executes", "task.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf,
                 "--shell_env", f"FAIL_SESSIONS={fail_sessions}", timeout=120)
    return r, conf


def env_of(tony, index, attempt):
    task = tony.task("worker", index)
    log_dir = task["log_dir"].replace(f"attempt-{task.get('attempt', 0)}", f"attempt-{attempt}")
    return json.load(open(os.path.join(log_dir, "env.json")))


def test_a_failed_job_runs_again_as_a_new_session_and_succeeds(tony, tmp_path):
    r, conf = run(tony, tmp_path, retries=1, fail_sessions=1)
    assert r.returncode == 0, r.stdout + r.stderr
    status = tony.status()
    assert status["final_status"] == "SUCCEEDED", status
    note = (f"session retry 1 of 1 (tony.am.retry-count, from {conf}): the job failed: task "
            "worker:1 failed: exit 3")
    assert status["message"].startswith("all 2 tracked task(s) succeeded; in " + note), status
    assert "unknown key" not in r.stderr and "not supported" not in r.stderr, r.stderr
    for i in (0, 1):
        t = tony.task("worker", i)
        assert t["state"] == "SUCCEEDED" and t["attempt"] == 1, t
        past = t["past_attempts"]
        assert len(past) == 1 and past[0]["restart"] == note, t
        # Only the retried session's tasks are told which retry they run in (TonY's env var).
        assert env_of(tony, i, 1) == {"NUM_AM_RETRIES": "1", "ATTEMPT_NUMBER": "1"}
    # worker:1 ran and failed in the first session; worker:0 may have been stopped before its
    # process started.
    assert env_of(tony, 1, 0) == {"NUM_AM_RETRIES": None, "ATTEMPT_NUMBER": "0"}
    assert tony.task("worker", 1)["past_attempts"][0]["state"] == "FAILED"
    assert_nothing_left(tony.home)


def test_the_last_sessions_failure_fails_the_job_saying_which_session(tony, tmp_path):
    r, conf = run(tony, tmp_path, retries=1, fail_sessions=5)
    assert r.returncode == 1, r.stdout + r.stderr
    status = tony.status()
    assert status["final_status"] == "FAILED", status
    assert status["message"].startswith(
        "task worker:1 failed: exit 3; in session retry 1 of 1 (tony.am.retry-count, from "
        f"{conf}): the job failed: task worker:1 failed: exit 3"), status
    assert all(t["attempt"] == 1 for t in status["tasks"]), status
    assert_nothing_left(tony.home)
