"""TonY's preprocessing job (tony.application.enable-preprocess) and single-node job (no task
instances) on the local engine, as a TonY user's job file meets them: the command runs once as
task am:0 before any other task, its "Model parameters: ..." line reaches every later task as
MODEL_PARAMS, a failed preprocess fails the job without starting the tasks, and a job with no
task instances runs its command once and ends with its result."""
import json
import os

from tonytest import SYSTEM_PYTHON, assert_nothing_left, job_id_from, tony_xml


def conf_file(tmp_path, props):
    base = {"tony.application.framework": "generic", "tony.am.memory": "128m",
            "tony.worker.memory": "128m"}
    base.update(props)
    return tony_xml(str(tmp_path / "tony.xml"), base)


def tasks_of(status):
    return {f"{t['role']}:{t['index']}": t for t in status["tasks"]}


def test_the_preprocess_output_reaches_every_task_as_model_params(tony, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    params = '{"vocab": 30522, "lr": 0.1}'
    prep = (f"echo reading data; echo 'Model parameters: {params}'; "
            f"echo 'Model parameters: second'; "
            f'printf %s "$PREPROCESSING_JOB" > {shared}/prep-env; touch {shared}/prepared')
    # A worker that ran before the preprocess ended would find no marker and exit 7.
    work = (f"test -e {shared}/prepared || exit 7; "
            f'printf %s "$MODEL_PARAMS" > {shared}/params-$TASK_INDEX; '
            f'printf %s "${{PREPROCESSING_JOB-unset}}|$TASK_NUM" > {shared}/env-$TASK_INDEX')
    conf = conf_file(tmp_path, {"tony.application.enable-preprocess": "true",
                                "tony.am.command": prep,
                                "tony.worker.instances": "2",
                                "tony.worker.command": work})
    r = tony.run("submit", "--conf_file", conf, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    job_id = job_id_from(r.stdout)
    status = tony.status(job_id)
    assert status["final_status"] == "SUCCEEDED"
    assert status["message"] == "all 2 tracked task(s) succeeded"
    tasks = tasks_of(status)
    assert tasks["am:0"]["state"] == "SUCCEEDED"
    assert tasks["am:0"]["stage"] == "preprocess"
    assert tasks["worker:0"]["stage"] == "training"
    assert (shared / "prep-env").read_text() == "true"
    for i in (0, 1):
        assert (shared / f"params-{i}").read_text() == params  # the first marker line's rest
        assert (shared / f"env-{i}").read_text() == "unset|2"  # TASK_NUM counts the tasks only
    am_log = open(os.path.join(tony.job_dir(job_id), "am.log")).read()
    assert "the preprocess stage (am) succeeded: starting the training stage (worker)" in am_log
    assert_nothing_left(tony.home)


def test_a_failed_preprocess_fails_the_job_and_no_task_starts(tony, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    conf = conf_file(tmp_path, {"tony.application.enable-preprocess": "true",
                                "tony.am.command": "echo 'no such table' >&2; exit 3",
                                "tony.worker.instances": "2",
                                "tony.worker.command": f"touch {shared}/worker-ran-$TASK_INDEX"})
    r = tony.run("submit", "--conf_file", conf, timeout=120)
    assert r.returncode != 0
    job_id = job_id_from(r.stdout)
    status = tony.status(job_id)
    assert status["final_status"] == "FAILED"
    assert status["message"].startswith(
        "task am:0 failed: exit 3; the training stage does not start"), status["message"]
    assert "no such table" in status["message"]
    tasks = tasks_of(status)
    assert tasks["am:0"]["state"] == "FAILED"
    for name in ("worker:0", "worker:1"):
        assert tasks[name]["state"] == "NOT_STARTED", tasks[name]
    assert not os.listdir(shared)
    assert "task am:0 failed: exit 3" in r.stdout + r.stderr
    assert_nothing_left(tony.home)


def test_a_job_with_no_task_instances_runs_its_command_once(tony, tmp_path):
    (tmp_path / "src").mkdir()
    out = tmp_path / "ran"
    script = tmp_path / "src" / "single.py"
    script.write_text(
        "import os, sys\n"
        f"open({str(out)!r}, 'a').write(os.environ.get('PREPROCESSING_JOB', '') + '|' +\n"
        "                               os.environ.get('TB_PORT', '') + '\\n')\n"
        "sys.exit(int(sys.argv[1]))\n")
    conf = conf_file(tmp_path, {"tony.worker.instances": "0",
                                "tony.application.framework": "pytorch"})
    r = tony.run("submit", "--executes", "single.py", "--task_params", "0",
                 "--python_binary_path", SYSTEM_PYTHON, "--src_dir", str(tmp_path / "src"),
                 "--conf_file", conf, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    job_id = job_id_from(r.stdout)
    status = tony.status(job_id)
    assert status["final_status"] == "SUCCEEDED"
    assert list(tasks_of(status)) == ["am:0"]
    # Once, as TonY's preprocessing job, with TonY's TB_PORT of a single-node job.
    prep, tb_port = out.read_text().rstrip("\n").split("|")
    assert prep == "true" and tb_port.isdigit(), out.read_text()
    am = tasks_of(status)["am:0"]
    assert status["tensorboard_url"] == f"http://{am['host']}:{tb_port}"

    r = tony.run("submit", "--executes", "single.py", "--task_params", "5",
                 "--python_binary_path", SYSTEM_PYTHON, "--src_dir", str(tmp_path / "src"),
                 "--conf_file", conf, timeout=120)
    assert r.returncode != 0
    status = tony.status(job_id_from(r.stdout))
    assert status["final_status"] == "FAILED"
    assert status["message"].startswith("task am:0 failed: exit 5"), status["message"]
    assert_nothing_left(tony.home)


def test_no_task_instances_and_no_command_is_refused(tony, tmp_path):
    conf = conf_file(tmp_path, {"tony.worker.instances": "0"})
    r = tony.run("submit", "--conf_file", conf, timeout=60)
    assert r.returncode != 0
    assert "no tasks and no command" in r.stderr
    assert "tony.<role>.instances" in r.stderr
    assert tony.jobs() == []
    assert_nothing_left(tony.home)
