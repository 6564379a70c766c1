"""A YARN job seen from anywhere (README "A YARN job seen from anywhere"): once the submitting
client is killed (SIGKILL), `tony status` and `tony logs` of the application id answer from the
cluster, from the client's own TONY_HOME (whose record nobody keeps current any more) and from a
second one that never saw the job: the live task table from the AM's read-only status endpoint
while it runs, the AM's container log and a task's log from the NodeManagers, the RM's final
status once it ended, and KILLED with no task RUNNING after `tony kill`.

The AM's endpoint answers the RM's web proxy only (issue 28). On the minicluster the RM's proxy
connects from 127.0.0.1 (its web app's host), the address this test's clients use too, so the
port scan is played from 127.0.0.3, another loopback address (Linux routes all of 127/8 to lo)
that is not the proxy's: it gets 403 and no byte of the job, while `tony status` (through the
proxy) still shows the tasks. That the AM tells the two apart by address, not by anything else,
is what this proves."""
import http.client
import json
import os
import re
import signal
import urllib.error
import urllib.parse
import urllib.request

from tonytest import SYSTEM_PYTHON, Tony, eventually, tony_xml, write
from test_yarn_client_death import rm_app, rm_url

# A task that runs until the test lets it go: no fixed sleep decides when the job ends.
TASK = """import os, sys, time
print('working on', os.environ.get('TONY_TASK_INDEX'), flush=True)
deadline = time.time() + 300
while not os.path.exists(sys.argv[1]) and time.time() < deadline:
    time.sleep(0.2)
print('released', flush=True)
"""


def tony_for(home, conf_dir):
    tony = Tony(home)
    tony.env["HADOOP_CONF_DIR"] = conf_dir
    return tony


def submit_and_kill_client(tmp_path, conf_dir):
    """Submits a 2-worker job from home1, waits until both tasks run, then SIGKILLs the client.
    Returns (home1's Tony, the application id, the release file)."""
    tony = tony_for(tmp_path / "home1", conf_dir)
    src = tmp_path / "src"
    release = tmp_path / "release"
    write(str(src / "job.py"), TASK)
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.application.name": "anywhere",
        "tony.worker.instances": "2", "tony.worker.memory": "256m", "tony.am.memory": "256m"})
    proc = tony.start("submit", "--executes", "job.py", "--task_params", str(release),
                      "--python_binary_path", SYSTEM_PYTHON, "--src_dir", str(src),
                      "--conf_file", xml)
    try:
        def running():
            app = tony.running_job(tasks=2)
            return app if app and rm_app(conf_dir, app)["state"] == "RUNNING" else None
        app_id = eventually(running, timeout=180, interval=0.5, what="both tasks running")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    return tony, app_id, release


def task_rows(stdout):
    """{"worker:0": "RUNNING", ...} from a `tony status` table."""
    return {f"{m.group(1)}:{m.group(2)}": m.group(3)
            for m in re.finditer(r"^(\w+)\s+(\d+)\s+([A-Z_]+)\b", stdout, re.M)
            if m.group(1) != "ROLE"}


def get_from(url, source):
    """GET `url` from the local address `source`: (status, body)."""
    parsed = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=10,
                                      source_address=(source, 0))
    try:
        conn.request("GET", parsed.path or "/")
        r = conn.getresponse()
        return r.status, r.read().decode()
    finally:
        conn.close()


def status_of(tony, app_id):
    st = tony.run("status", app_id)
    return st, task_rows(st.stdout)


def await_end(conf_dir, app_id):
    return eventually(lambda: (lambda a: a if a["state"] in ("FINISHED", "FAILED", "KILLED")
                               else None)(rm_app(conf_dir, app_id)),
                      timeout=180, interval=0.5, what="the application to end")


def test_status_and_logs_from_anywhere_while_running_and_after(minicluster, tmp_path):
    home1, app_id, release = submit_and_kill_client(tmp_path, minicluster)
    home2 = tony_for(tmp_path / "home2", minicluster)
    try:
        # Running: both homes show the live table from the AM's endpoint. home2 has no record.
        assert not os.path.exists(os.path.join(home2.home, "jobs", app_id))
        for tony in (home1, home2):
            st, rows = status_of(tony, app_id)
            assert st.returncode == 0, st.stdout + st.stderr
            assert f"job {app_id} (pytorch, yarn engine): RUNNING" in st.stdout, st.stdout
            assert rows == {"worker:0": "RUNNING", "worker:1": "RUNNING"}, st.stdout
        # The endpoint itself, at the URL the AM logged and registered as its tracking URL:
        # a port scan from an address that is not the RM's proxy gets 403 and nothing of the job.
        am = home2.run("logs", app_id)
        assert am.returncode == 0, am.stdout + am.stderr
        url = re.search(r"read-only status endpoint at (http://\S+)", am.stdout)
        assert url, am.stdout + am.stderr
        proxies = re.search(r"status endpoint answers the RM's web proxy only: (.*)", am.stdout)
        assert proxies, am.stdout
        assert "127.0.0.1" in proxies.group(1).split(", "), proxies.group(0)
        assert "127.0.0.3" not in proxies.group(1).split(", "), proxies.group(0)
        code, body = get_from(url.group(1), "127.0.0.3")
        assert code == 403, (code, body)
        assert app_id not in body and "worker" not in body and "RUNNING" not in body, body
        # The RM's proxy, its web app's /proxy/<app>/ (the minicluster reports the proxy's
        # address as localhost:0 in trackingUrl, so it is built from the web app's address),
        # reads read-only JSON in status.json's shape.
        proxied = f"{rm_url(minicluster)}/proxy/{app_id}/"
        assert rm_app(minicluster, app_id)["trackingUrl"].endswith(f"/proxy/{app_id}/")
        body = urllib.request.urlopen(proxied, timeout=10).read().decode()
        live = json.loads(body)
        assert live["job_id"] == app_id and len(live["tasks"]) == 2, body
        assert all(t["state"] == "RUNNING" for t in live["tasks"]), body
        try:
            urllib.request.urlopen(urllib.request.Request(url.group(1), data=b"x", method="POST"),
                                   timeout=10)
            raise AssertionError("the status endpoint accepted a POST")
        except urllib.error.HTTPError as e:
            assert e.code == 405, e

        # The user's applications on the cluster, next to the local ones: listed once.
        ls = home2.run("status")
        assert ls.returncode == 0, ls.stdout + ls.stderr
        lines = [l for l in ls.stdout.splitlines() if l.startswith(app_id)]
        assert len(lines) == 1 and "anywhere" in lines[0] and "RUNNING" in lines[0], ls.stdout
        ls1 = home1.run("status")
        assert len([l for l in ls1.stdout.splitlines() if l.startswith(app_id)]) == 1, ls1.stdout

        # A task's log from home2, found through the AM's status.
        task = home2.run("logs", app_id, "--task", "worker:1", "--stream", "stdout")
        assert task.returncode == 0, task.stdout + task.stderr
        assert "working on 1" in task.stdout, task.stdout + task.stderr

        release.write_text("go")
        app = await_end(minicluster, app_id)
        assert app["state"] == "FINISHED" and app["finalStatus"] == "SUCCEEDED", app
        # The AM's diagnostics say what happened, for whoever asks the RM later.
        assert "tasks: SUCCEEDED worker:0 worker:1" in app["diagnostics"], app["diagnostics"]

        # Ended: the RM's final status from both homes; home1's record was stale and is updated.
        for tony in (home1, home2):
            st, rows = status_of(tony, app_id)
            assert st.returncode == 0, st.stdout + st.stderr
            assert "FINISHED SUCCEEDED" in st.stdout, st.stdout + st.stderr
            assert "RUNNING" not in st.stdout, st.stdout
            assert "tasks: SUCCEEDED worker:0 worker:1" in st.stdout, st.stdout
        assert home1.status(app_id)["final_status"] == "SUCCEEDED"
        assert not os.path.exists(os.path.join(home2.home, "jobs", app_id))

        # The AM's log after the end, from its NodeManager.
        am = home2.run("logs", app_id)
        assert am.returncode == 0, am.stdout + am.stderr
        assert "unregistered from the ResourceManager: SUCCEEDED" in am.stdout, am.stdout
    finally:
        release.write_text("go")


def test_status_after_tony_kill_shows_killed_and_no_task_running(minicluster, tmp_path):
    home1, app_id, release = submit_and_kill_client(tmp_path, minicluster)
    home2 = tony_for(tmp_path / "home2", minicluster)
    try:
        kill = home1.run("kill", app_id)
        assert kill.returncode == 0, kill.stdout + kill.stderr
        assert f"job {app_id} KILLED" in kill.stdout, kill.stdout + kill.stderr
        for tony in (home1, home2):
            st, rows = status_of(tony, app_id)
            assert st.returncode == 1, st.stdout + st.stderr
            assert "FINISHED KILLED" in st.stdout, st.stdout + st.stderr
            assert "RUNNING" not in st.stdout, st.stdout
        assert home1.status(app_id)["final_status"] == "KILLED"
        assert all(t["state"] != "RUNNING" for t in home1.status(app_id)["tasks"])
        # The AM's log is still there for the post-mortem.
        am = home2.run("logs", app_id)
        assert am.returncode == 0, am.stdout + am.stderr
        assert "coordinator listening on" in am.stdout, am.stdout
    finally:
        release.write_text("go")
