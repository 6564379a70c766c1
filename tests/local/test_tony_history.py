"""TonY's job history (tony.history.location): the layout TonY's portal reads, the .jhist events
read back by TonY's own generated classes (tony-core 0.4.7's com.linkedin.tony.events.Event, with
Avro's SpecificDatumReader, as the portal does) while the job runs and after it ended, and a
location that cannot be written warning without failing the job."""
import glob
import os
import re

from tonytest import SYSTEM_PYTHON, eventually, job_id_from, tony_xml, write
from tony_events import read_events


# Each worker says it runs, then waits for the test's go file; MODE=fail1 makes worker 1 exit 3
# and worker 0 wait until tony stops it; MODE=fail1once makes only worker 1's first attempt fail.
SCRIPT = """
import os, sys, time
index = int(os.environ["TASK_INDEX"])
open(os.path.join(os.environ["SYNC_DIR"], f"running-{index}"), "w").close()
fail1 = os.environ.get("MODE") == "fail1"
if os.environ.get("MODE") == "fail1once" and index == 1 and os.environ["ATTEMPT_NUMBER"] == "0":
    sys.exit(3)
while not os.path.exists(os.path.join(os.environ["SYNC_DIR"], "go")) or (fail1 and index == 0):
    time.sleep(0.05)
if fail1 and index == 1:
    print("worker 1 gives up", file=sys.stderr, flush=True)
    sys.exit(3)
"""


def start_job(tony, tmp_path, history, *extra, **props):
    src = tmp_path / "src"
    write(str(src / "job.py"), SCRIPT)
    sync = tmp_path / "sync"
    sync.mkdir()
    conf = {"tony.application.framework": "pytorch", "tony.worker.instances": "2",
            "tony.worker.memory": "256m", "tony.history.location": history}
    conf.update(props)
    conf_file = tony_xml(str(tmp_path / "tony.xml"), conf)
    proc = tony.start("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                      "--src_dir", str(src), "--conf_file", conf_file,
                      "--shell_env", f"SYNC_DIR={sync}", *extra)
    return proc, sync


def wait_running(sync, n=2):
    eventually(lambda: all((sync / f"running-{i}").exists() for i in range(n)), timeout=60,
               what="every worker running")


def finished_jhist(history, app_id, status):
    pattern = os.path.join(history, "finished", "*", "*", "*", app_id, "*.jhist")
    found = glob.glob(pattern)
    assert len(found) == 1, (pattern, found, list(os.walk(history)))
    path = found[0]
    yyyy, mm, dd = path.split(os.sep)[-5:-2]
    assert re.fullmatch(r"\d{4}", yyyy) and re.fullmatch(r"\d\d", mm) and re.fullmatch(r"\d\d", dd)
    m = re.fullmatch(re.escape(app_id) + r"-(\d+)-(\d+)-([^-]+)-" + status + r"\.jhist",
                     os.path.basename(path))
    assert m, os.path.basename(path)
    started, completed = int(m.group(1)), int(m.group(2))
    assert started <= completed
    return path, started, completed


def test_history_in_tonys_layout_read_by_tonys_classes_while_running_and_after(tony, tmp_path):
    history = str(tmp_path / "history")
    proc, sync = start_job(tony, tmp_path, "file://" + history,
                           **{"tony.task.metrics-interval-ms": "100"})
    try:
        wait_running(sync)
        # The executors sample the workers' memory a few times before they may end.
        eventually(lambda: all(t.get("metrics") for t in tony.status()["tasks"]), timeout=30,
                   what="every worker's metrics")
        # While the job runs: intermediate/<appId>/ with tony-final.xml and the .inprogress file,
        # whose events so far TonY's classes read.
        live = glob.glob(os.path.join(history, "intermediate", "*", "*.jhist.inprogress"))
        assert len(live) == 1, list(os.walk(history))
        app_dir = os.path.dirname(live[0])
        app_id = os.path.basename(app_dir)
        assert "-" not in app_id  # TonY's readers split the file names on '-'
        assert re.fullmatch(re.escape(app_id) + r"-\d+-[^-]+\.jhist\.inprogress",
                            os.path.basename(live[0]))
        assert os.path.exists(os.path.join(app_dir, "tony-final.xml"))
        for d in (history + "/intermediate", app_dir):
            assert os.stat(d).st_mode & 0o777 == 0o770, d
        events = read_events(live[0])
        assert events[0][0] == "ApplicationInited"
        assert events[0][1]["type"] == "APPLICATION_INITED"
        assert events[0][1]["event"]["numTasks"] == 2
        started = sorted(e["event"]["taskIndex"] for c, e in events if c == "TaskStarted")
        assert started == [0, 1], events
        assert not [c for c, _ in events if c in ("TaskFinished", "ApplicationFinished")]
    finally:
        (sync / "go").touch()
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    job_id = job_id_from(out)
    assert app_id == job_id.replace("-", "_")
    # After the end: renamed with the end and the status, moved to finished/yyyy/MM/dd/<appId>/.
    assert not os.path.exists(app_dir)
    path, started_ms, completed_ms = finished_jhist(history, app_id, "SUCCEEDED")
    assert os.path.exists(os.path.join(os.path.dirname(path), "tony-final.xml"))
    events = read_events(path)
    kinds = [c for c, _ in events]
    assert kinds[0] == "ApplicationInited" and kinds[-1] == "ApplicationFinished", kinds
    assert events[0][1]["event"]["applicationId"] == app_id
    assert events[0][1]["timestamp"] == started_ms
    for index in (0, 1):
        starts = [e for c, e in events if c == "TaskStarted" and e["event"]["taskIndex"] == index]
        ends = [e for c, e in events if c == "TaskFinished" and e["event"]["taskIndex"] == index]
        assert len(starts) == 1 and len(ends) == 1, events
        assert starts[0]["event"]["taskType"] == "worker"
        assert ends[0]["event"]["taskType"] == "worker"
        assert ends[0]["event"]["status"] == "SUCCEEDED"
        assert ends[0]["event"]["containerDiagnostic"] is None
        # The attempt's memory metrics, as TonY's TaskMonitor names them (README "Task metrics").
        metrics = {m["name"]: m["value"] for m in ends[0]["event"]["metrics"]}
        assert set(metrics) == {"MAX_MEMORY_BYTES", "AVG_MEMORY_BYTES"}, metrics
        assert 0 < metrics["AVG_MEMORY_BYTES"] <= metrics["MAX_MEMORY_BYTES"], metrics
        assert starts[0]["timestamp"] <= ends[0]["timestamp"]
    end = events[-1][1]
    assert end["type"] == "APPLICATION_FINISHED" and end["timestamp"] == completed_ms
    assert (end["event"]["finishedTasks"], end["event"]["failedTasks"]) == (2, 0)


def test_a_failed_task_and_job_are_named_so_in_the_history(tony, tmp_path):
    history = str(tmp_path / "history")
    proc, sync = start_job(tony, tmp_path, history, "--shell_env", "MODE=fail1")
    wait_running(sync)
    (sync / "go").touch()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, out + err
    app_id = job_id_from(out).replace("-", "_")
    path, _, _ = finished_jhist(history, app_id, "FAILED")
    events = {e["event"]["taskIndex"]: e["event"] for c, e in read_events(path)
              if c == "TaskFinished"}
    assert events[1]["status"] == "FAILED"
    assert "exit 3" in events[1]["containerDiagnostic"], events[1]
    # Worker 0 was stopped when worker 1 failed: TonY's name for that is KILLED.
    assert events[0]["status"] == "KILLED"


def test_a_restarted_task_has_a_start_and_an_end_per_attempt(tony, tmp_path):
    history = str(tmp_path / "history")
    proc, sync = start_job(tony, tmp_path, history, "--shell_env", "MODE=fail1once",
                           **{"tony.worker.restart-policy": "on-failure",
                              "tony.worker.restart-scope": "task",
                              "tony.worker.max-restarts": "1"})
    wait_running(sync)
    (sync / "go").touch()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    path, _, _ = finished_jhist(history, job_id_from(out).replace("-", "_"), "SUCCEEDED")
    events = read_events(path)
    ones = [(c, e["event"].get("status")) for c, e in events
            if c.startswith("Task") and e["event"]["taskIndex"] == 1]
    assert ones == [("TaskStarted", None), ("TaskFinished", "FAILED"),
                    ("TaskStarted", None), ("TaskFinished", "SUCCEEDED")], events
    zeros = [c for c, e in events if c.startswith("Task") and e["event"]["taskIndex"] == 0]
    assert zeros == ["TaskStarted", "TaskFinished"], events


def test_a_history_location_that_cannot_be_written_warns_and_the_job_still_runs(tony, tmp_path):
    history = str(tmp_path / "no-such-parent" / "history")
    proc, sync = start_job(tony, tmp_path, history)
    wait_running(sync)
    (sync / "go").touch()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    job_id = job_id_from(out)
    # The job's result says its history is incomplete, naming the path and why.
    reason = f"cannot create the directory {history}: No such file or directory"
    assert "TonY history is incomplete" in out and reason in out, out + err
    status = tony.status(job_id)
    assert status["final_status"] == "SUCCEEDED"
    assert "TonY history is incomplete" in status["message"] and reason in status["message"]
    am_log = open(os.path.join(tony.job_dir(job_id), "am.log")).read()
    assert "TonY history" in am_log and reason in am_log
    assert not os.path.exists(tmp_path / "no-such-parent")
