"""The command line a migrating TonY user meets: help for every subcommand, where job records go,
role-name typos, --shell_env forms, TonY's default job file and entry point, `tony logs` and
`tony status` options, and messages that say what happened."""
import json
import os
import re
import signal
import subprocess
import threading

from tonytest import SYSTEM_PYTHON, TONY_BIN, eventually, job_id_from, tony_xml, write

COMMANDS = ["submit", "status", "kill", "logs", "am", "executor", "bundle", "version"]


def one_worker(tmp_path, script="print('hi', flush=True)\n", name="job.py", **props):
    src = tmp_path / "src"
    write(str(src / name), script)
    conf = {"tony.application.framework": "generic", "tony.worker.instances": "1",
            "tony.worker.memory": "128m", "tony.local.vcores": "8"}
    conf.update(props)
    return str(src), tony_xml(str(tmp_path / "job.xml"), conf)


def submit_py(tony, tmp_path, *extra, script="print('hi', flush=True)\n", **props):
    src, conf = one_worker(tmp_path, script, **props)
    return tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                    "--src_dir", src, "--conf_file", conf, *extra)


def test_every_subcommand_has_help_three_ways_and_help_does_no_work(tony):
    for cmd in COMMANDS:
        texts = []
        for args in (["help", cmd], [cmd, "--help"], [cmd, "-h"]):
            r = tony.run(*args)
            assert r.returncode == 0, (args, r.stdout + r.stderr)
            assert r.stdout.startswith(f"usage: tony {cmd}"), (args, r.stdout)
            assert r.stderr == "", (args, r.stderr)
            texts.append(r.stdout)
        assert texts[0] == texts[1] == texts[2], cmd
    # `tony status --help` looked for a job named --help; `tony bundle --help` built a bundle.
    assert not os.path.exists(os.path.join(tony.home, "cache"))
    assert "--follow" in tony.run("help", "logs").stdout and "--tail" in tony.run("logs", "-h").stdout
    r = tony.run("help", "nosuch")
    assert r.returncode == 2 and "unknown command nosuch" in r.stderr


def test_relative_tony_home_is_made_absolute_and_the_job_runs(tony, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    src, conf = one_worker(tmp_path)
    env = dict(tony.env, TONY_HOME="rel-home")
    r = subprocess.run([TONY_BIN, "submit", "--executes", "job.py", "--python_binary_path",
                        SYSTEM_PYTHON, "--src_dir", src, "--conf_file", conf], env=env,
                       cwd=str(work), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    job_id = job_id_from(r.stdout)
    assert f"job dir {work}/rel-home/jobs/{job_id}" in r.stdout
    assert os.path.isdir(work / "rel-home" / "jobs" / job_id)


def test_without_home_the_client_refuses_rather_than_use_tmp(tony, tmp_path):
    env = {k: v for k, v in tony.env.items() if k not in ("HOME", "TONY_HOME")}
    before = os.path.exists("/tmp/.tony")
    r = subprocess.run([TONY_BIN, "submit", "--executes", "true"], env=env,
                       cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "neither TONY_HOME nor HOME is set: set TONY_HOME to a directory of your own" in \
        r.stderr, r.stderr
    assert "does not fall back to /tmp" in r.stderr, r.stderr
    assert os.path.exists("/tmp/.tony") == before


def test_a_bad_conf_flag_is_named_once(tony, tmp_path):
    r = tony.run("submit", "--executes", "true", "--conf", "oops", cwd=str(tmp_path))
    assert r.returncode == 2
    assert r.stderr.count("--conf oops") == 1, r.stderr
    assert "--conf oops: expected key=value" in r.stderr


def test_role_name_close_to_a_known_or_sibling_role_warns_with_did_you_mean(tony, tmp_path):
    src, conf = one_worker(tmp_path)
    for typo, meant in (("workers", "worker"), ("evalutor", "evaluator"), ("wroker", "worker")):
        # tony.local.memory=1 refuses the job after the warnings, so nothing runs.
        r = tony.run("submit", "--executes", "true", "--conf_file", conf, "--conf",
                     f"tony.{typo}.instances=2", "--conf", "tony.local.memory=1")
        assert r.returncode == 2, r.stdout + r.stderr
        assert (f"tony.{typo}.instances makes a role of its own, '{typo}' (2 task(s)); "
                f"did you mean tony.{meant}.instances?") in r.stderr, r.stderr
    r = tony.run("submit", "--executes", "true", "--conf_file", conf, "--conf",
                 "tony.db.instances=1", "--conf", "tony.local.memory=1")
    assert "did you mean" not in r.stderr, r.stderr


def test_shell_env_name_alone_is_empty_and_empty_name_is_refused(tony, tmp_path):
    script = "import os\nprint('EMPTY=[%s]' % os.environ['EMPTY'], flush=True)\n"
    r = submit_py(tony, tmp_path, "--shell_env", "EMPTY", script=script)
    assert r.returncode == 0, r.stdout + r.stderr
    logs = tony.run("logs", job_id_from(r.stdout), "--task", "worker:0", "--stream", "stdout")
    assert "EMPTY=[]" in logs.stdout
    jobs_before = tony.jobs()
    for flag in ("--shell_env", "--container_env"):
        r = submit_py(tony, tmp_path, flag, "=v")
        assert r.returncode == 2
        assert f"{flag} =v: the variable name is empty; expected NAME=VALUE" in r.stderr, r.stderr
    assert tony.jobs() == jobs_before


def test_tony_xml_in_the_working_dir_is_the_job_file_and_a_nameless_property_is_skipped(
        tony, tmp_path):
    write(str(tmp_path / "src" / "job.py"), "print('ran from the default job file', flush=True)\n")
    write(str(tmp_path / "tony.xml"),
          "<configuration>\n"
          "  <property><name>tony.worker.instances</name><value>1</value></property>\n"
          "  <property><value>orphan</value></property>\n"
          "  <property><name>tony.application.name</name><value>from-cwd</value></property>\n"
          "  <property><name>tony.application.framework</name><value>generic</value></property>\n"
          "  <property><name>tony.worker.memory</name><value>128m</value></property>\n"
          "</configuration>\n")
    r = tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", "src", cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "using ./tony.xml as the job file" in r.stderr
    assert "tony.xml:3: <property> without a <name> skipped" in r.stderr, r.stderr
    final = open(os.path.join(tony.job_dir(job_id_from(r.stdout)), "tony-final.xml")).read()
    assert "from-cwd" in final


def test_entry_point_with_mode_644_is_made_executable_as_tony_does(tony, tmp_path):
    src = tmp_path / "src"
    write(str(src / "run.sh"), "#!/bin/bash\necho run.sh ran\n", mode=0o644)
    conf = tony_xml(str(tmp_path / "job.xml"), {"tony.application.framework": "generic",
                                                 "tony.worker.instances": "1",
                                                 "tony.worker.memory": "128m"})
    r = tony.run("submit", "--executes", "./run.sh", "--src_dir", str(src), "--conf_file", conf)
    assert r.returncode == 0, r.stdout + r.stderr
    logs = tony.run("logs", job_id_from(r.stdout), "--task", "worker:0", "--stream", "stdout")
    assert "run.sh ran" in logs.stdout


def test_a_script_named_as_a_command_is_refused_before_start_with_the_hint(tony, tmp_path):
    src, conf = one_worker(tmp_path, name="t.py")
    r = tony.run("submit", "--executes", "t.py", "--src_dir", src, "--conf_file", conf)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "t.py is a file of the job, not a command" in r.stderr
    assert "--python_binary_path python3" in r.stderr and "--executes ./t.py" in r.stderr
    assert tony.jobs() == []
    # A command on PATH is still a command.
    r = tony.run("submit", "--executes", "true", "--src_dir", src, "--conf_file", conf)
    assert r.returncode == 0, r.stdout + r.stderr


def test_logs_tail_attempts_flags_and_stream_without_task(tony, tmp_path):
    script = "for i in range(10):\n    print('line', i, flush=True)\n"
    r = submit_py(tony, tmp_path, script=script)
    assert r.returncode == 0, r.stdout + r.stderr
    job = job_id_from(r.stdout)
    tail = tony.run("logs", job, "--task", "worker:0", "--stream", "stdout", "--tail", "3")
    assert tail.returncode == 0 and tail.stdout == "line 7\nline 8\nline 9\n", tail.stdout
    missing = tony.run("logs", job, "--task", "worker:0", "--attempt", "4")
    assert missing.returncode == 2
    assert "task worker:0 has no attempt 4 (attempts: 0 to 0)" in missing.stderr
    typo = tony.run("logs", job, "--task", "worker:0", "--taill", "3")
    assert typo.returncode == 2 and "unknown flag --taill; did you mean --tail?" in typo.stderr
    stream = tony.run("logs", job, "--stream", "stdout")
    assert stream.returncode == 2 and "add --task role:index" in stream.stderr
    bad = tony.run("logs", job, "--task", "worker:0", "--tail", "-2")
    assert bad.returncode == 2 and "--tail -2: expected a number >= 0" in bad.stderr


def test_logs_follow_streams_a_running_task_until_it_ends(tony, tmp_path):
    go = tmp_path / "go"
    script = (f"import os, time\nprint('first', flush=True)\n"
              f"while not os.path.exists({str(go)!r}):\n    time.sleep(0.05)\n"
              f"print('second', flush=True)\n")
    src, conf = one_worker(tmp_path, script)
    submit = tony.start("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                        "--src_dir", src, "--conf_file", conf)
    try:
        job = eventually(lambda: tony.running_job(tasks=1), timeout=60, what="the task running")
        follow = tony.start("logs", job, "--task", "worker:0", "--stream", "stdout", "-f")
        lines = []
        reader = threading.Thread(target=lambda: lines.extend(follow.stdout), daemon=True)
        reader.start()
        # The follower prints what there is, then waits: "second" comes only after the go file,
        # which exists only once "first" was seen, so a follower that stopped early misses it.
        eventually(lambda: lines, timeout=30, what="the follower to print the first line")
        assert follow.poll() is None, "the follower exited while the task still ran"
        go.touch()
        follow.wait(timeout=60)
        reader.join(timeout=10)
        assert follow.returncode == 0, follow.stderr.read()
        assert "".join(lines) == "first\nsecond\n", lines
    finally:
        submit.communicate(timeout=120)


def test_status_lists_jobs_by_start_with_name_user_duration_and_refuses_odd_ids(tony, tmp_path):
    for name in ("first-job", "second-job"):
        r = submit_py(tony, tmp_path, "--conf", f"tony.application.name={name}")
        assert r.returncode == 0, r.stdout + r.stderr
    listing = tony.run("status")
    assert listing.returncode == 0
    lines = listing.stdout.splitlines()
    assert re.match(r"JOB +NAME +USER +STARTED +DURATION +STATE +MESSAGE", lines[0]), lines[0]
    assert [re.search(r"(first|second)-job", l).group(1) for l in lines[1:]] == ["first", "second"]
    assert all(re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +\d+s +SUCCEEDED", l) for l in lines[1:])
    for odd in ("", "/", ".", ".."):
        r = tony.run("status", odd)
        assert r.returncode == 2, (odd, r.stdout)
        assert "tony: error:" in r.stderr
    r = tony.run("status", tony.jobs()[0], "extra")
    assert r.returncode == 2 and "takes at most one job id; got" in r.stderr


def test_sigterm_is_reported_as_sigterm_and_the_executor_log_does_not_contradict_itself(
        tony, tmp_path):
    r = submit_py(tony, tmp_path)
    assert r.returncode == 0
    path = os.path.join(tony.job_dir(job_id_from(r.stdout)), "tasks", "worker-0", "attempt-0",
                        "executor.log")
    # The executor's last line comes just after the report that ends the job (when the engine's
    # clean-up lets it get that far): it never says both "could not report" and "reported".
    log = open(path).read()
    assert "could not report" not in log, log
    assert all("result reported; exiting with 0" in line for line in log.splitlines()
               if "exiting with" in line), log

    src, conf = one_worker(tmp_path, "import time\nprint('up', flush=True)\ntime.sleep(300)\n")
    p = tony.start("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                   "--src_dir", src, "--conf_file", conf)
    eventually(lambda: tony.running_job(tasks=1), timeout=60, what="the task running")
    os.kill(p.pid, signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    assert "SIGTERM received; stopping job" in err, err
    assert "interrupted;" not in err, err
    assert "killed by SIGTERM to tony submit" in out, out


def test_executor_log_says_the_result_was_not_reported_when_the_coordinator_died(tony, tmp_path):
    src, conf = one_worker(tmp_path, "import time\nprint('up', flush=True)\ntime.sleep(300)\n")
    p = tony.start("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                   "--src_dir", src, "--conf_file", conf)
    try:
        job = eventually(lambda: tony.running_job(tasks=1), timeout=60, what="the task running")
        # RUNNING is the coordinator's view; the executor may still wait for its spec answer.
        out = os.path.join(tony.job_dir(job), "tasks", "worker-0", "attempt-0", "stdout")
        eventually(lambda: os.path.exists(out) and "up" in open(out).read(), timeout=60,
                   what="the user process to start")
        with open(os.path.join(tony.job_dir(job), "am.json")) as f:
            am_pid = json.load(f)["pid"]
        os.kill(am_pid, signal.SIGKILL)
        path = os.path.join(tony.job_dir(job), "tasks", "worker-0", "attempt-0", "executor.log")
        log = eventually(lambda: "exiting with" in open(path).read() and open(path).read(),
                         timeout=60, what="the executor's last line")
        assert "could not report the result" in log, log
        assert "the result was not reported" in log, log
        assert "result reported" not in log, log
    finally:
        p.communicate(timeout=60)


def test_a_file_uri_job_file_is_a_local_path_and_hdfs_needs_a_cluster(tony, tmp_path):
    # TonY opens a --conf_file with a scheme through its file system: file:// is local here.
    src, conf = one_worker(tmp_path, **{"tony.application.name": "from-a-file-uri"})
    r = tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", src, "--conf_file", "file://" + conf)
    assert r.returncode == 0, r.stdout + r.stderr
    final = open(os.path.join(tony.job_dir(job_id_from(r.stdout)), "tony-final.xml")).read()
    assert "from-a-file-uri" in final
    # hdfs:// without a cluster to read it from: the reason, before anything starts.
    r = tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", src, "--conf_file", "hdfs:///jobs/tony.xml")
    assert r.returncode == 2, r.stdout + r.stderr
    assert ("--conf_file hdfs:///jobs/tony.xml: reading a job file from HDFS needs the cluster's "
            "Hadoop config: set HADOOP_CONF_DIR") in r.stderr, r.stderr
    assert len(tony.jobs()) == 1


def test_readers_refuse_a_record_another_user_could_have_planted(tony, tmp_path):
    """README "Directories tony trusts", the readers' side: `tony status` and `tony kill` of a job
    id read its record only where `tony submit` would write one. Without HOME and TONY_HOME they
    refuse (before, they read /tmp/.tony, which anyone can create); under a jobs dir every user
    can write, a forged job whose am.json names a live process of ours is refused, naming the dir,
    and that process is not signalled."""
    env = {k: v for k, v in tony.env.items() if k not in ("HOME", "TONY_HOME")}
    r = subprocess.run([TONY_BIN, "status", "tony-20260101-000000-abcdef"], env=env,
                       cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
    assert r.returncode != 0, r.stdout + r.stderr
    assert "neither TONY_HOME nor HOME is set" in r.stderr, r.stderr

    victim = subprocess.Popen(["sleep", "60"])
    try:
        with open(f"/proc/{victim.pid}/stat") as f:
            start_id = f.read().rsplit(")", 1)[1].split()[19]
        home = tmp_path / "planted"
        job = home / "jobs" / "tony-20260101-000000-abcdef"
        job.mkdir(parents=True)
        os.chmod(home, 0o700)
        os.chmod(home / "jobs", 0o777)
        write(str(job / "am.json"), json.dumps({"host": "127.0.0.1", "port": 1,
                                                "pid": victim.pid, "start_id": start_id}))
        write(str(job / "tony-final.xml"), "<configuration/>\n")
        planted = dict(tony.env, TONY_HOME=str(home))
        for command in ("status", "kill"):
            r = subprocess.run([TONY_BIN, command, "tony-20260101-000000-abcdef"], env=planted,
                               capture_output=True, text=True, timeout=60)
            assert r.returncode != 0, (command, r.stdout + r.stderr)
            assert f"{home}/jobs is writable by every user" in r.stderr, (command, r.stderr)
        assert victim.poll() is None  # never signalled
        r = subprocess.run([TONY_BIN, "status"], env=planted, capture_output=True, text=True,
                           timeout=60)
        assert "not listing local jobs" in r.stderr and "writable by every user" in r.stderr, \
            r.stdout + r.stderr
        assert "tony-20260101-000000-abcdef" not in r.stdout, r.stdout
    finally:
        victim.kill()
        victim.wait()


def test_status_json_is_the_status_file_and_the_list_for_scripts(tony, tmp_path):
    """docs/status-json.md: `tony status --json <id>` prints the job's status.json form (enums
    by name, every field present), with the table's exit code; `tony status --json` lists the
    jobs; a misspelt flag is refused naming --json."""
    src = tmp_path / "src"
    write(str(src / "job.py"), "import os, sys\nsys.exit(3 if os.environ['TASK_INDEX'] == '1' "
                               "else 0)\n")
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "2", "tony.worker.memory": "256m",
        "tony.application.framework": "generic"})
    r = tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf)
    assert r.returncode == 1, r.stdout + r.stderr
    job_id = job_id_from(r.stdout)

    one = tony.run("status", "--json", job_id)
    assert one.returncode == 1, one.stdout + one.stderr  # as without --json: the job failed
    doc = json.loads(one.stdout)
    assert doc == tony.status(job_id)
    assert doc["job_id"] == job_id and doc["phase"] == "FINISHED"
    assert doc["final_status"] == "FAILED" and doc["engine"] == "local"
    states = {(t["role"], t["index"]): t for t in doc["tasks"]}
    assert states[("worker", 1)]["state"] == "FAILED" and states[("worker", 1)]["exit_code"] == 3
    assert "diagnostics" in states[("worker", 0)]  # present even when empty

    listing = tony.run("status", "--json")
    assert listing.returncode == 0, listing.stdout + listing.stderr
    jobs = json.loads(listing.stdout)["jobs"]
    assert [j["job_id"] for j in jobs] == [job_id]
    assert jobs[0]["state"] == "FAILED" and jobs[0]["start_wall_ms"] > 0

    bad = tony.run("status", "--jsn", job_id)
    assert bad.returncode == 2 and "--json" in bad.stderr, bad.stderr


def test_log_level_debug_reaches_the_coordinator_and_the_tasks_and_a_bad_one_is_named(
        tony, tmp_path):
    script = "import os\nprint('level', os.environ.get('TONY_LOG_LEVEL'), flush=True)\n"
    tony.env["TONY_LOG_LEVEL"] = "debug"
    r = submit_py(tony, tmp_path, script=script)
    assert r.returncode == 0, r.stdout + r.stderr
    job = tony.job_dir(job_id_from(r.stdout))
    am_log = open(os.path.join(job, "am.log")).read()
    assert re.search(r"Z D am\] launched \S+ as pid \d+", am_log), am_log
    stdout = os.path.join(job, "tasks", "worker-0", "attempt-0", "stdout")
    assert open(stdout).read() == "level debug\n"

    tony.env["TONY_LOG_LEVEL"] = "chatty"
    r = submit_py(tony, tmp_path, script=script)
    assert r.returncode == 0, r.stdout + r.stderr
    warning = ("TONY_LOG_LEVEL=chatty is not a log level (debug, info, warning or error); "
               "logging at info")
    assert warning in r.stderr, r.stderr
    am_log = open(os.path.join(tony.job_dir(job_id_from(r.stdout)), "am.log")).read()
    assert " D am] " not in am_log and warning in am_log, am_log
