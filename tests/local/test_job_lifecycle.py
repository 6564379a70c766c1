"""A job on the local engine from submit to result: success, status and logs after the end,
failures that name the task, and the outcome rules a user relies on."""
import json
import os
import subprocess

import pytest

from tonytest import SYSTEM_PYTHON, assert_nothing_left, job_id_from, tony_xml, write

SCRIPT = """
import os, sys, time
role, index = os.environ["JOB_NAME"], int(os.environ["TASK_INDEX"])
print(f"hello from {role}:{index} rank={os.environ.get('RANK')} world={os.environ.get('WORLD_SIZE')}", flush=True)
mode = os.environ.get("MODE", "ok")
if mode == "fail1" and index == 1:
    print("worker 1 is about to fail", file=sys.stderr, flush=True)
    sys.exit(3)
if mode == "fail1" and index == 0:
    time.sleep(float(os.environ.get("SLOW", "0")))
"""


def make_job(tmp_path, **props):
    src = tmp_path / "src"
    write(str(src / "job.py"), SCRIPT)
    conf = {"tony.application.framework": "pytorch", "tony.worker.instances": "2",
            "tony.worker.memory": "256m"}
    conf.update(props)
    return str(src), tony_xml(str(tmp_path / "tony.xml"), conf)


def submit(tony, tmp_path, *extra, **props):
    src, conf = make_job(tmp_path, **props)
    return tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                    "--src_dir", src, "--conf_file", conf, *extra)


def test_two_workers_succeed_and_can_be_inspected_afterwards(tony, tmp_path):
    r = submit(tony, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    job_id = job_id_from(r.stdout)
    assert job_id
    assert f"job {job_id} SUCCEEDED" in r.stdout
    # The live table shows each task with its address, exit code and log directory.
    assert "ROLE" in r.stdout and "HOST:PORT" in r.stdout and "LOG" in r.stdout
    status = tony.status(job_id)
    assert status["final_status"] == "SUCCEEDED"
    assert [(t["role"], t["index"], t["state"], t["exit_code"]) for t in status["tasks"]] == [
        ("worker", 0, "SUCCEEDED", 0), ("worker", 1, "SUCCEEDED", 0)]
    # The job dir keeps the configuration as run.
    assert "tony.worker.instances" in open(os.path.join(tony.job_dir(job_id), "tony-final.xml")).read()
    # `tony status` and `tony logs` work after the job.
    s = tony.run("status", job_id)
    assert s.returncode == 0 and "SUCCEEDED" in s.stdout and "worker" in s.stdout
    logs = tony.run("logs", job_id, "--task", "worker:1", "--stream", "stdout")
    assert logs.returncode == 0
    assert "hello from worker:1 rank=1 world=2" in logs.stdout
    listing = tony.run("status")
    assert job_id in listing.stdout
    assert_nothing_left(tony.home)


def test_flags_take_single_dash_and_equals_and_conf_overrides_the_file(tony, tmp_path):
    src, conf = make_job(tmp_path)
    r = tony.run("submit", "-executes=job.py", "-python_binary_path", SYSTEM_PYTHON,
                 "--src_dir=" + src, "-conf_file", conf, "--conf", "tony.worker.instances=3")
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(tony.status()["tasks"]) == 3


def test_failed_worker_fails_the_job_promptly_naming_it(tony, tmp_path):
    r = submit(tony, tmp_path, "--shell_env", "MODE=fail1", "--shell_env", "SLOW=120")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAILED" in r.stdout
    assert "task worker:1 failed: exit 3" in r.stdout
    assert "worker 1 is about to fail" in r.stdout  # the last lines of its stderr
    status = tony.status()
    assert tony.task("worker", 1)["state"] == "FAILED"
    # Promptly: worker 0 (which sleeps 120 s) was stopped, not waited for; a job that waited
    # would show it SUCCEEDED (and outlive tony.run's 120 s limit).
    assert tony.task("worker", 0)["state"] == "STOPPED"
    assert status["final_status"] == "FAILED"
    assert_nothing_left(tony.home)


def test_stderr_that_is_not_utf8_still_names_the_failure(tony, tmp_path):
    # The last lines of stderr travel to the coordinator in a proto3 string, which must be UTF-8:
    # Latin-1 output once made the coordinator refuse the whole report (found by fuzz/task_env).
    src = tmp_path / "src"
    write(str(src / "latin1.py"),
          'import sys\nsys.stderr.buffer.write(b"caf\\xe9 went wrong\\n")\nsys.exit(3)\n')
    conf = tony_xml(str(tmp_path / "tony.xml"),
                    {"tony.worker.instances": "1", "tony.worker.memory": "256m"})
    r = tony.run("submit", "--executes", "latin1.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "last lines of stderr" in r.stdout, r.stdout
    assert "caf\ufffd went wrong" in r.stdout, r.stdout


def test_a_six_megabyte_progress_bar_leaves_a_short_failure_message_with_the_reason(tony, tmp_path):
    # One stderr "line" of \r-separated redraws, 6 MB: once the whole line went into the report,
    # which then exceeded gRPC's 4 MB limit and the reason was lost.
    src = tmp_path / "src"
    write(str(src / "bar.py"), 'import sys\n'
          'for i in range(300000): sys.stderr.write(f"\\r{i:>8} [{\'#\' * 10}]")\n'
          'sys.stderr.write("\\rRuntimeError: out of patience")\nsys.exit(3)\n')
    conf = tony_xml(str(tmp_path / "tony.xml"),
                    {"tony.worker.instances": "1", "tony.worker.memory": "256m"})
    r = tony.run("submit", "--executes", "bar.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf)
    assert r.returncode == 1, r.stdout[-3000:] + r.stderr
    stderr_file = os.path.join(tony.task("worker", 0)["log_dir"], "stderr")
    assert os.path.getsize(stderr_file) > 6_000_000
    assert "RuntimeError: out of patience" in r.stdout, r.stdout[-3000:]
    assert "  299999 [##########]" in r.stdout, r.stdout[-3000:]  # the redraw before it
    message = tony.status()["message"]
    assert "out of patience" in message and len(message.encode()) < 12_000, len(message)
    assert len(r.stdout.encode()) < 64_000, len(r.stdout)
    events = open(os.path.join(tony.job_dir(), "events.jsonl")).read()
    assert len(events.encode()) < 64_000
    log = open(os.path.join(tony.task("worker", 0)["log_dir"], "executor.log")).read()
    assert "could not report" not in log, log


def test_escape_sequences_in_a_tasks_stderr_reach_the_terminal_harmlessly(tony, tmp_path):
    # OSC 0 (retitle the terminal, ended by BEL) and CSI 2J (clear it) in the failure's reason.
    conf = tony_xml(str(tmp_path / "tony.xml"),
                    {"tony.worker.instances": "1", "tony.worker.memory": "256m"})
    r = tony.run("submit", "--executes", r"printf '\033]0;pwned\007\033[2Jboom\n' >&2; exit 4",
                 "--conf_file", conf)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "^[]0;pwned^G^[[2Jboom" in r.stdout, r.stdout
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout, r.stdout
    s = tony.run("status", os.path.basename(tony.job_dir()))
    assert "boom" in s.stdout and "\x1b" not in s.stdout, s.stdout


def test_with_fail_on_worker_failure_false_the_job_runs_on_as_tony_did(tony, tmp_path):
    r = submit(tony, tmp_path, "--shell_env", "MODE=fail1", "--shell_env", "SLOW=3",
               **{"tony.application.fail-on-worker-failure-enabled": "false",
                  "tony.application.framework": "generic"})
    # worker:0 (the chief) finishes its work; the non-chief failure is tolerated (TonY #428).
    assert r.returncode == 0, r.stdout + r.stderr
    assert "completed with 1 failed task" in r.stdout
    assert tony.task("worker", 0)["state"] == "SUCCEEDED"
    assert tony.task("worker", 1)["state"] == "FAILED"


def test_untracked_ps_is_stopped_when_workers_finish(tony, tmp_path):
    src = tmp_path / "src"
    write(str(src / "job.py"), "import os, time\nif os.environ['JOB_NAME'] == 'ps':\n    time.sleep(300)\n")
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "tensorflow", "tony.worker.instances": "2",
        "tony.ps.instances": "1", "tony.worker.memory": "256m", "tony.ps.memory": "256m"})
    r = tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf)
    assert r.returncode == 0, r.stdout + r.stderr
    assert tony.task("ps", 0)["state"] == "STOPPED"
    assert tony.task("worker", 1)["state"] == "SUCCEEDED"
    assert_nothing_left(tony.home)


def test_hung_task_hits_the_application_timeout(tony, tmp_path):
    src = tmp_path / "src"
    write(str(src / "hang.py"), "import time\ntime.sleep(600)\n")
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "2", "tony.worker.memory": "256m",
        "tony.application.timeout": "3000"})
    # The tasks sleep 600 s; tony.run gives up after 120 s: ending at all is the timeout's doing.
    r = tony.run("submit", "--executes", "hang.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf)
    assert r.returncode == 1
    # The key and the file that set it, which the coordinator knows from the job spec file.
    assert f"timed out after 3000 ms (tony.application.timeout, from {conf})" in r.stdout
    assert_nothing_left(tony.home)


@pytest.mark.parametrize("key", ["tony.task.executor.execution-timeout-ms",
                                 # TonY's name before TonY #596, still in old job files
                                 "tony.worker.timeout"])
def test_execution_timeout_kills_the_user_process_and_says_which_key(tony, tmp_path, key):
    src = tmp_path / "src"
    write(str(src / "slow.py"), "import time\ntime.sleep(120)\n")
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "generic", "tony.worker.instances": "1",
        "tony.worker.memory": "256m", key: "1500"})
    # slow.py sleeps 120 s, as long as tony.run waits: it ended because the timeout stopped it,
    # which executor.log says below.
    r = tony.run("submit", "--executes", "slow.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf, timeout=100)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "unknown key" not in r.stderr, r.stderr
    assert f"execution timed out after 1500 ms ({key}, from {conf})" in \
        open(os.path.join(tony.task("worker", 0)["log_dir"], "executor.log")).read()
    assert_nothing_left(tony.home)


def test_error_message_max_depth_bounds_the_stderr_lines_in_the_failure(tony, tmp_path):
    src = tmp_path / "src"
    write(str(src / "noisy.py"), "import sys\nfor i in range(10):\n"
                                 "    print(f'line {i}', file=sys.stderr)\nsys.exit(4)\n")
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "generic", "tony.worker.instances": "1",
        "tony.worker.memory": "256m",
        "tony.task.executor.execution.error-message-max-depth": "3"})
    r = tony.run("submit", "--executes", "noisy.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf)
    assert r.returncode == 1, r.stdout + r.stderr
    diagnostics = tony.task("worker", 0)["diagnostics"]
    assert "line 7" in diagnostics and "line 9" in diagnostics, diagnostics
    assert "line 6" not in diagnostics, diagnostics
