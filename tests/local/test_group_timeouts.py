"""TonY's group dependency timeouts on the local engine (TonY's testGroupDependencyTimeout* and
testTaskWithDependencyTimeout*): an evaluator that hangs after the workers ended fails the job
after the timeout, or with `.ignored` is stopped and the job succeeds."""
from tonytest import assert_nothing_left, job_id_from, tony_xml


def run(tony, tmp_path, ignored):
    props = {
        "tony.application.framework": "tensorflow",
        "tony.worker.instances": "2", "tony.worker.memory": "128m",
        "tony.worker.command": "true",
        "tony.evaluator.instances": "1", "tony.evaluator.memory": "128m",
        "tony.evaluator.command": "exec sleep 300",
        "tony.application.group.A": "worker",
        "tony.application.dependency.evaluator.timeout.after.A": "1",
    }
    if ignored:
        props["tony.application.dependency.evaluator.timeout.after.A.ignored"] = "true"
    conf = tony_xml(str(tmp_path / "tony.xml"), props)
    r = tony.run("submit", "--conf_file", conf, timeout=120)
    job_id = job_id_from(r.stdout)
    assert job_id, r.stdout + r.stderr
    assert "unknown key" not in r.stderr and "not supported" not in r.stderr, r.stderr
    return r, tony.status(job_id)


def states(status):
    return {f"{t['role']}:{t['index']}": t["state"] for t in status["tasks"]}


def test_a_dependent_outliving_its_group_fails_the_job(tony, tmp_path):
    r, status = run(tony, tmp_path, ignored=False)
    assert r.returncode == 1, r.stdout + r.stderr
    assert status["final_status"] == "FAILED"
    assert status["message"] == (
        "role evaluator still running 1 s after every task of group A (worker) ended "
        f"(tony.application.dependency.evaluator.timeout.after.A, from {tmp_path / 'tony.xml'})")
    assert status["message"] in r.stdout
    assert states(status) == {"worker:0": "SUCCEEDED", "worker:1": "SUCCEEDED",
                              "evaluator:0": "STOPPED"}
    assert_nothing_left(tony.home)


def test_an_ignored_timeout_stops_the_dependent_and_the_job_succeeds(tony, tmp_path):
    r, status = run(tony, tmp_path, ignored=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert status["final_status"] == "SUCCEEDED"
    assert status["message"].startswith("all 2 tracked task(s) succeeded; role evaluator still "
                                        "running 1 s after every task of group A (worker) ended, "
                                        "no longer waited for")
    evaluator = [t for t in status["tasks"] if t["role"] == "evaluator"][0]
    assert evaluator["state"] == "STOPPED" and not evaluator["tracked"], evaluator
    assert_nothing_left(tony.home)
