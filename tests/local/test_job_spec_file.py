"""The job spec file (docs/job-spec.md): the client validates the job once and writes the JobSpec
to tony-spec.pb in the job dir; the coordinator and every executor run the job from that file,
never from tony-final.xml. A task started after tony-final.xml was rewritten still sees what was
submitted, and a task whose spec file is gone fails with a message naming the file."""
import os

from tonytest import assert_nothing_left, eventually, tony_xml


def staged_conf(tmp_path, shared):
    """A prepare stage (role prep) that says it runs, then waits for the test's go-ahead, and a
    training stage (role worker) that starts only after it, recording what it sees."""
    go = shared / "go"
    props = {
        "tony.application.framework": "generic",
        "tony.application.prepare-stage": "prep",
        "tony.prep.instances": "1",
        "tony.worker.instances": "1",
        "tony.prep.memory": "128m",
        "tony.worker.memory": "128m",
        "tony.execution.envs": "SPEC_PROBE=submitted",
        "tony.prep.command": f"touch {shared}/prep-runs; until [ -e {go} ]; do sleep 0.05; done",
        "tony.worker.command": f'printf %s "$SPEC_PROBE" > {shared}/worker-saw',
    }
    return tony_xml(str(tmp_path / "tony.xml"), props), go


def start_and_wait_for_prep(tony, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    conf, go = staged_conf(tmp_path, shared)
    proc = tony.start("submit", "--conf_file", conf)
    job_id = eventually(lambda: tony.jobs() and tony.jobs()[-1], what="a job dir")
    # The worker's executor has not started yet: it starts once prep:0 succeeded.
    eventually(lambda: (shared / "prep-runs").exists(), timeout=60, what="prep:0 running")
    return proc, job_id, shared, go


def test_tasks_run_with_the_submitted_spec_not_a_rewritten_tony_final_xml(tony, tmp_path):
    proc, job_id, shared, go = start_and_wait_for_prep(tony, tmp_path)
    job_dir = tony.job_dir(job_id)
    assert os.path.getsize(os.path.join(job_dir, "tony-spec.pb")) > 0
    final = os.path.join(job_dir, "tony-final.xml")
    text = open(final).read()
    assert "SPEC_PROBE=submitted" in text
    with open(final, "w") as f:
        f.write(text.replace("SPEC_PROBE=submitted", "SPEC_PROBE=rewritten"))

    go.touch()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    assert (shared / "worker-saw").read_text() == "submitted"
    # tony-final.xml is the user's to read; tony did not write it again.
    assert "SPEC_PROBE=rewritten" in open(final).read()
    assert_nothing_left(tony.home)


def test_an_executor_without_its_spec_file_fails_naming_it(tony, tmp_path):
    proc, job_id, shared, go = start_and_wait_for_prep(tony, tmp_path)
    spec = os.path.join(tony.job_dir(job_id), "tony-spec.pb")
    with open(spec, "wb") as f:
        f.write(b"<configuration/>\n")  # not a spec file: what a mix-up would leave

    go.touch()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode != 0, out + err
    assert not (shared / "worker-saw").exists()
    status = tony.status(job_id)
    assert status["final_status"] == "FAILED"
    assert f"{spec}: not a tony job spec file" in status["message"], status["message"]
    assert_nothing_left(tony.home)
