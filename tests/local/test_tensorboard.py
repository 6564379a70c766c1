"""The sidecar TensorBoard without a TensorBoard to run: its task fails saying which key to set,
and the job, which does not wait for a sidecar, succeeds anyway (TonY #558). The sidecar with a
real TensorBoard: tests/frameworks/test_tensorboard.py; TB_PORT on the chief alone:
tests/local/test_control_plane_and_env.py."""
import os

from tonytest import assert_nothing_left, eventually, tony_xml


def test_a_sidecar_without_tensorboard_fails_naming_the_key_and_the_job_succeeds(tony, tmp_path):
    go = tmp_path / "go"
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "tensorflow", "tony.worker.instances": "1",
        "tony.worker.memory": "256m", "tony.tensorboard.memory": "256m",
        "tony.python-exec-path": str(tmp_path / "no-python")})
    # The worker runs until the test has seen the sidecar fail.
    proc = tony.start("submit", "--executes", f"while [ ! -e {go} ]; do sleep 0.1; done",
                      "--conf_file", conf, "--sidecar_tensorboard_log_dir", str(tmp_path / "tb"))

    def tensorboard_failed():
        try:
            t = tony.task("tensorboard", 0)
        except (IndexError, KeyError, OSError, ValueError):
            return None
        return t if t["state"] == "FAILED" else None

    tb = eventually(tensorboard_failed, timeout=60, what="the sidecar to fail")
    go.touch()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, out + err
    assert tb.get("exit_code") == 127, tb
    assert (f"{tmp_path / 'no-python'} cannot import tensorboard; set tony.tensorboard.command"
            in tb["diagnostics"]), tb
    status = tony.status()
    assert status["final_status"] == "SUCCEEDED"
    assert tony.task("worker", 0)["state"] == "SUCCEEDED"
    assert status["tensorboard_url"] == f"http://{tb['host']}:{tb['port']}"
    assert "set tony.tensorboard.command" in out, out  # the live table shows why it failed
    assert os.path.basename(tony.job_dir()) in out
    assert_nothing_left(tony.home)
