"""TonY's prepare and training stages (tony.application.prepare-stage / training-stage) on the
local engine, as a user of TonY's scheduler test layout meets them: the training roles get no
container until every tracked prepare task succeeded, each stage sees only its own roles, a
failed prepare stage fails the job without starting training, and a bad stage key is refused
before anything starts."""
import json
import os

from tonytest import TONY_BIN, assert_nothing_left, eventually, job_id_from, tony_xml


def record(shared, what):
    """A shell snippet: the task writes its CLUSTER_SPEC to <shared>/<what>-<role>-<index>."""
    return f'printf %s "$CLUSTER_SPEC" > {shared}/{what}-$JOB_NAME-$TASK_INDEX'


def staged_conf(tmp_path, commands, extra=None):
    props = {
        "tony.application.framework": "generic",
        "tony.application.prepare-stage": "dbloader,db",
        "tony.dbloader.instances": "1",
        "tony.db.instances": "1",
        "tony.worker.instances": "2",
        "tony.ps.instances": "1",
    }
    for role in ("dbloader", "db", "worker", "ps"):
        props[f"tony.{role}.memory"] = "128m"
        props[f"tony.{role}.command"] = commands[role]
    props.update(extra or {})
    return tony_xml(str(tmp_path / "tony.xml"), props)


def events(tony, job_id):
    with open(os.path.join(tony.job_dir(job_id), "events.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def first_time(evs, task_prefix, state):
    times = [e["time_ms"] for e in evs if e.get("task", "").startswith(task_prefix)
             and e.get("state") == state]
    return min(times) if times else None


def test_training_starts_only_after_the_prepare_stage_succeeded(tony, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    go = shared / "go"
    # dbloader waits for the test's go-ahead, so the test sees the training stage waiting.
    conf = staged_conf(tmp_path, {
        "dbloader": f"until [ -e {go} ]; do sleep 0.05; done; {record(shared, 'spec')}; "
                    f"echo rows > {shared}/data",
        "db": f"{record(shared, 'spec')}",
        "worker": f"test -e {shared}/data || exit 7; {record(shared, 'spec')}",
        "ps": f"{record(shared, 'spec')}; exec sleep 300",
    })
    proc = tony.start("submit", "--conf_file", conf)
    job_id = eventually(lambda: tony.jobs() and tony.jobs()[-1], what="a job dir")

    def prepare_runs():
        try:
            tasks = {f"{t['role']}:{t['index']}": t for t in tony.status(job_id)["tasks"]}
        except (OSError, ValueError, KeyError):
            return None
        return tasks if tasks.get("dbloader:0", {}).get("state") == "RUNNING" else None

    tasks = eventually(prepare_runs, what="dbloader:0 RUNNING")
    # The training stage has no container yet, and every view says why.
    for name in ("worker:0", "worker:1", "ps:0"):
        assert tasks[name]["state"] == "NEW", tasks[name]
        assert tasks[name]["stage"] == "training"
    assert tasks["dbloader:0"]["stage"] == "prepare"
    status = tony.run("status", job_id)
    assert status.returncode == 0, status.stderr
    worker_row = [line for line in status.stdout.splitlines() if line.startswith("worker ")][0]
    assert "NEW" in worker_row and "waits for the prepare stage" in worker_row, status.stdout

    go.touch()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    assert "SUCCEEDED" in out

    # Each stage's CLUSTER_SPEC lists its own roles only.
    prepare = json.loads((shared / "spec-db-0").read_text())
    assert sorted(prepare) == ["db", "dbloader"]
    training = json.loads((shared / "spec-worker-1").read_text())
    assert sorted(training) == ["ps", "worker"]
    assert len(training["worker"]) == 2

    evs = events(tony, job_id)
    prepared = max(first_time(evs, "db:", "SUCCEEDED"), first_time(evs, "dbloader:", "SUCCEEDED"))
    assert first_time(evs, "worker:", "ALLOCATED") >= prepared
    assert first_time(evs, "ps:", "ALLOCATED") >= prepared
    am_log = open(os.path.join(tony.job_dir(job_id), "am.log")).read()
    assert ("the prepare stage (db, dbloader) succeeded: starting the training stage "
            "(ps, worker)") in am_log
    final = {f"{t['role']}:{t['index']}": t["state"] for t in tony.status(job_id)["tasks"]}
    assert final == {"db:0": "SUCCEEDED", "dbloader:0": "SUCCEEDED", "worker:0": "SUCCEEDED",
                     "worker:1": "SUCCEEDED", "ps:0": "STOPPED"}
    assert_nothing_left(tony.home)


def test_a_failed_prepare_task_fails_the_job_and_training_never_starts(tony, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    conf = staged_conf(tmp_path, {
        "dbloader": "echo 'table missing' >&2; exit 3",
        "db": "exec sleep 300",
        "worker": f"touch {shared}/worker-ran",
        "ps": f"touch {shared}/ps-ran",
    }, {"tony.application.fail-on-worker-failure-enabled": "false"})
    r = tony.run("submit", "--conf_file", conf, timeout=120)
    assert r.returncode != 0
    job_id = job_id_from(r.stdout)
    status = tony.status(job_id)
    assert status["final_status"] == "FAILED"
    assert status["message"].startswith(
        "task dbloader:0 failed: exit 3; the training stage does not start")
    assert "table missing" in status["message"]
    tasks = {f"{t['role']}:{t['index']}": t for t in status["tasks"]}
    for name in ("worker:0", "worker:1", "ps:0"):
        assert tasks[name]["state"] == "NOT_STARTED", tasks[name]
        assert "the training stage does not start" in tasks[name]["end_reason"]
    assert tasks["db:0"]["state"] == "STOPPED"
    assert not os.listdir(shared)  # no training process ever ran
    assert "the training stage does not start" in r.stdout + r.stderr
    assert_nothing_left(tony.home)


def test_a_stage_naming_no_role_of_the_job_is_refused_before_anything_starts(tony, tmp_path):
    conf = staged_conf(tmp_path, {r: "true" for r in ("dbloader", "db", "worker", "ps")},
                       {"tony.application.prepare-stage": "dbloadr,db"})
    r = tony.run("submit", "--conf_file", conf, timeout=60)
    assert r.returncode != 0
    assert "tony.application.prepare-stage" in r.stderr
    assert "'dbloadr', which is no role of this job" in r.stderr
    assert "did you mean 'dbloader'?" in r.stderr
    assert tony.jobs() == []
    assert_nothing_left(tony.home)
