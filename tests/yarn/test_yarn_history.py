"""TonY's job history on the cluster's HDFS, written by the AM on YARN (README "Job history for
TonY's portal"): a plain tony.history.location is on fs.defaultFS, as TonY resolves it. While the
job runs, intermediate/<appId>/ holds tony-final.xml and the .jhist.inprogress events file, which
TonY's own classes read; at the end it is renamed with the end and the status and moved to
finished/yyyy/MM/dd/<appId>/. A location on another file system is refused with the key named,
and the job still succeeds."""
import getpass
import json
import os
import re
import urllib.error
import urllib.request

from tonytest import SYSTEM_PYTHON, Tony, eventually, tony_xml, write
from tony_events import read_events
from minicluster import site_property

SCRIPT = """
import os, time
index = int(os.environ["TASK_INDEX"])
open(os.path.join(os.environ["SYNC_DIR"], f"running-{index}"), "w").close()
while not os.path.exists(os.path.join(os.environ["SYNC_DIR"], "go")):
    time.sleep(0.05)
"""


def webhdfs(conf_dir, path, op):
    http = site_property(conf_dir, "hdfs-site.xml", "dfs.namenode.http-address")
    user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
    # OPEN's 307 to a DataNode is followed by urllib for a GET.
    with urllib.request.urlopen(f"http://{http}/webhdfs/v1{path}?op={op}&user.name={user}",
                                timeout=30) as r:
        return r.read()


def listing(conf_dir, path):
    """{name: (type, permission)} of an HDFS directory; None when it does not exist."""
    try:
        body = json.loads(webhdfs(conf_dir, path, "LISTSTATUS"))
    except urllib.error.HTTPError as e:
        assert e.code == 404, e
        return None
    return {s["pathSuffix"]: (s["type"], s["permission"])
            for s in body["FileStatuses"]["FileStatus"]}


def fetch(conf_dir, path, tmp_path):
    local = tmp_path / os.path.basename(path)
    local.write_bytes(webhdfs(conf_dir, path, "OPEN"))
    return str(local)


def start_job(minicluster, tmp_path, history):
    src = tmp_path / "src"
    write(str(src / "job.py"), SCRIPT)
    sync = tmp_path / "sync"
    sync.mkdir()
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "2",
        "tony.worker.memory": "256m", "tony.am.memory": "256m",
        "tony.history.location": history})
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = minicluster
    proc = tony.start("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                      "--src_dir", str(src), "--conf_file", xml, "--shell_env", f"SYNC_DIR={sync}")
    return proc, sync


def wait_running(sync, proc):
    def running():
        assert proc.poll() is None, proc.communicate()
        return all((sync / f"running-{i}").exists() for i in range(2))
    eventually(running, timeout=120, what="both workers running")


def test_history_on_hdfs_in_tonys_layout_while_running_and_after(minicluster, tmp_path):
    root = f"/tony-history-{os.getpid()}"
    proc, sync = start_job(minicluster, tmp_path, root)
    try:
        wait_running(sync, proc)
        # Running: intermediate/<appId>/ with the configuration and the events so far.
        apps = listing(minicluster, f"{root}/intermediate")
        assert apps is not None and len(apps) == 1, apps
        app_id, (kind, permission) = next(iter(apps.items()))
        assert re.fullmatch(r"application_\d+_\d+", app_id) and kind == "DIRECTORY", apps
        assert permission == "770", apps
        app_dir = f"{root}/intermediate/{app_id}"
        # Each event is appended as it happens: both TASK_STARTED are there before the end.
        def both_started():
            files = listing(minicluster, app_dir)
            live = [n for n in files if n.endswith(".jhist.inprogress")]
            assert "tony-final.xml" in files and len(live) == 1, files
            events = read_events(fetch(minicluster, f"{app_dir}/{live[0]}", tmp_path))
            return (live[0], events) if len(
                [c for c, _ in events if c == "TaskStarted"]) == 2 else None
        live, events = eventually(both_started, timeout=60, what="both TASK_STARTED on HDFS")
        assert re.fullmatch(re.escape(app_id) + r"-\d+-[^-]+\.jhist\.inprogress", live), live
        assert events[0][0] == "ApplicationInited", events
        assert events[0][1]["event"]["applicationId"] == app_id
        assert events[0][1]["event"]["numTasks"] == 2
        assert events[0][1]["event"]["containerID"].startswith("container_"), events[0]
        assert not [c for c, _ in events if c in ("TaskFinished", "ApplicationFinished")]
    finally:
        (sync / "go").touch()
        out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, out + err
    assert "history is incomplete" not in out, out
    # Ended: renamed with the end and the status, moved to finished/yyyy/MM/dd/<appId>/.
    assert listing(minicluster, app_dir) is None
    years = listing(minicluster, f"{root}/finished")
    assert years is not None and len(years) == 1, years
    yyyy = next(iter(years))
    mm = next(iter(listing(minicluster, f"{root}/finished/{yyyy}")))
    dd = next(iter(listing(minicluster, f"{root}/finished/{yyyy}/{mm}")))
    assert re.fullmatch(r"\d{4}/\d\d/\d\d", f"{yyyy}/{mm}/{dd}")
    done_dir = f"{root}/finished/{yyyy}/{mm}/{dd}/{app_id}"
    files = listing(minicluster, done_dir)
    assert files is not None and "tony-final.xml" in files, files
    final = [n for n in files if n.endswith(".jhist")]
    assert len(final) == 1, files
    m = re.fullmatch(re.escape(app_id) + r"-(\d+)-(\d+)-[^-]+-SUCCEEDED\.jhist", final[0])
    assert m, final
    conf = webhdfs(minicluster, f"{done_dir}/tony-final.xml", "OPEN").decode()
    assert "tony.history.location" in conf and root in conf
    events = read_events(fetch(minicluster, f"{done_dir}/{final[0]}", tmp_path))
    kinds = [c for c, _ in events]
    assert kinds[0] == "ApplicationInited" and kinds[-1] == "ApplicationFinished", kinds
    assert events[0][1]["timestamp"] == int(m.group(1))
    assert events[-1][1]["timestamp"] == int(m.group(2))
    for index in (0, 1):
        ends = [e for c, e in events if c == "TaskFinished" and e["event"]["taskIndex"] == index]
        assert len(ends) == 1 and ends[0]["event"]["status"] == "SUCCEEDED", events
    end = events[-1][1]["event"]
    assert (end["finishedTasks"], end["failedTasks"]) == (2, 0)


def test_a_history_on_another_file_system_is_refused_naming_the_key(minicluster, tmp_path):
    history = "hdfs://elsewhere.invalid:8020/tony-history"
    proc, sync = start_job(minicluster, tmp_path, history)
    wait_running(sync, proc)
    (sync / "go").touch()
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, out + err
    assert "TonY history is incomplete" in out, out + err
    assert f"tony.history.intermediate={history}/intermediate" in out, out
    assert "default file system" in out, out
