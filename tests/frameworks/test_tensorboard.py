"""TensorBoard, real: --sidecar_tensorboard_log_dir adds TonY's `tensorboard` sidecar task, which
runs the venv's TensorBoard on the directory at its TB_PORT; a worker writes a scalar summary there
and waits until that TensorBoard lists its run. The job does not wait for TensorBoard, shows its
URL, and stops it at the end."""
import json
import os

from fwutil import SIDECAR_TB_WORKER, TF_PYTHON, output, require
from tonytest import assert_nothing_left, tony_xml, write


def test_sidecar_tensorboard_serves_the_log_dir_and_is_stopped_at_the_end(tony, tmp_path):
    require(TF_PYTHON, "tensorboard")
    src = tmp_path / "src"
    write(str(src / "worker.py"), SIDECAR_TB_WORKER)
    logdir = tmp_path / "tb"
    logdir.mkdir()
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "tensorflow", "tony.worker.instances": "1",
        "tony.worker.memory": "1g", "tony.tensorboard.memory": "1g"})
    r = tony.run("submit", "--executes", "worker.py", "--python_binary_path", TF_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf,
                 "--sidecar_tensorboard_log_dir", str(logdir),
                 "--shell_env", f"TB_TEST_LOG_DIR={logdir}", timeout=300)
    status = tony.status()
    assert r.returncode == 0, r.stdout + r.stderr + json.dumps(status, indent=1)
    assert status["final_status"] == "SUCCEEDED"
    assert "tensorboard lists" in output(tony, "worker", 0)

    tb = tony.task("tensorboard", 0)
    url = f"http://{tb['host']}:{tb['port']}"
    assert status["tensorboard_url"] == url
    # Stopped once the worker ended (TensorBoard exits 0 on SIGTERM, hence SUCCEEDED).
    assert not tb["tracked"] and "stopped" in tb["diagnostics"], tb
    assert tb["state"] in ("STOPPED", "SUCCEEDED"), tb
    assert f"TensorBoard: {url}" in r.stdout, r.stdout
    shown = tony.run("status", os.path.basename(tony.job_dir()))
    assert f"TensorBoard: {url}" in shown.stdout, shown.stdout
    # It ran the venv's TensorBoard on the directory, on its TB_PORT, held with SO_REUSEPORT.
    assert "bound with SO_REUSEPORT" in output(tony, "tensorboard", 0, "executor.log")
    assert "TensorBoard" in output(tony, "tensorboard", 0, "stderr")
    assert_nothing_left(tony.home)
