"""Task metrics (README "Task metrics"): each task's memory, sampled by its executor every
tony.task.metrics-interval-ms as the RSS of the task's processes, reported as TonY's
MAX_MEMORY_BYTES and AVG_MEMORY_BYTES in status.json while the task runs and after it ends."""
import os

from tonytest import SYSTEM_PYTHON, assert_nothing_left, eventually, tony_xml, write

MIB = 1 << 20

# worker:0 holds 300 MiB (touched, so resident) until the test says go; worker:1 holds little.
SCRIPT = """
import os, sys, time
d = sys.argv[1]
index = int(os.environ["TASK_INDEX"])
if index == 0:
    block = bytearray(300 * 1024 * 1024)
    for i in range(0, len(block), 4096):
        block[i] = 1
open(os.path.join(d, f"ready-{index}"), "w").close()
while not os.path.exists(os.path.join(d, "go")):
    time.sleep(0.05)
"""


def metrics_of(task):
    return {m["name"]: m["value"] for m in task.get("metrics", [])}


def test_each_tasks_memory_is_measured_while_it_runs_and_kept_after(tony, tmp_path):
    d = tmp_path / "shared"
    d.mkdir()
    write(str(tmp_path / "src" / "task.py"), SCRIPT)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "generic", "tony.worker.instances": "2",
        "tony.worker.memory": "1g", "tony.task.metrics-interval-ms": "100",
        "tony.task.heartbeat-interval-ms": "100"})
    proc = tony.start("submit", "--executes", "task.py", "--task_params", str(d),
                      "--python_binary_path", SYSTEM_PYTHON, "--src_dir", str(tmp_path / "src"),
                      "--conf_file", conf)
    try:
        eventually(lambda: (d / "ready-0").exists() and (d / "ready-1").exists(), timeout=60,
                   what="both tasks holding their memory")

        def measured_big():  # live: from a heartbeat, while the task still runs
            try:
                m = metrics_of(tony.task("worker", 0))
            except (OSError, ValueError, KeyError, IndexError):
                return None
            return m if m.get("MAX_MEMORY_BYTES", 0) >= 300 * MIB else None
        live = eventually(measured_big, timeout=30, what="worker:0's 300 MiB in its metrics")
        assert tony.task("worker", 0)["state"] == "RUNNING"
        assert 0 < live["AVG_MEMORY_BYTES"] <= live["MAX_MEMORY_BYTES"], live
    finally:
        (d / "go").touch()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, out + err
    big, small = metrics_of(tony.task("worker", 0)), metrics_of(tony.task("worker", 1))
    assert 300 * MIB <= big["MAX_MEMORY_BYTES"] < 600 * MIB, big
    assert 0 < small["MAX_MEMORY_BYTES"] < 100 * MIB, small  # a Python that holds little
    assert 0 < small["AVG_MEMORY_BYTES"] <= small["MAX_MEMORY_BYTES"], small
    assert_nothing_left(tony.home)


def test_no_sampling_when_the_interval_is_zero(tony, tmp_path):
    d = tmp_path / "shared"
    d.mkdir()
    (d / "go").touch()
    write(str(tmp_path / "src" / "task.py"), SCRIPT)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "generic", "tony.worker.instances": "1",
        "tony.worker.memory": "1g", "tony.task.metrics-interval-ms": "0"})
    r = tony.run("submit", "--executes", "task.py", "--task_params", str(d),
                 "--python_binary_path", SYSTEM_PYTHON, "--src_dir", str(tmp_path / "src"),
                 "--conf_file", conf, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert metrics_of(tony.task("worker", 0)) == {}, tony.task("worker", 0)
