"""`tony submit` on YARN when the client goes away: killed with SIGKILL, the application runs on
and the AM, once it has unregistered, removes the HDFS staging dir itself; interrupted (Ctrl-C),
the client stops the application (KILLED per the RM) and exits at once. Either way no container
or process is left. One module, so that the tier starts one minicluster for it."""
import getpass
import json
import os
import re
import signal
import time
import urllib.error
import urllib.request

from tonytest import SYSTEM_PYTHON, Tony, assert_nothing_left, eventually, tony_xml, write
from minicluster import site_property


def get_json(url):
    req = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


def rm_url(conf_dir):
    return "http://" + site_property(conf_dir, "yarn-site.xml", "yarn.resourcemanager.webapp.address")


def rm_app(conf_dir, app_id):
    """The RM's own view of the application (REST), independent of what tony reports."""
    return get_json(f"{rm_url(conf_dir)}/ws/v1/cluster/apps/{app_id}")["app"]


def live_containers(conf_dir, app_id):
    """Containers of the application that some NodeManager still runs (NM REST)."""
    app_suffix = app_id[len("application_"):]
    live = []
    nodes = get_json(f"{rm_url(conf_dir)}/ws/v1/cluster/nodes")["nodes"]["node"]
    for node in nodes:
        containers = get_json(f"http://{node['nodeHTTPAddress']}/ws/v1/node/containers")
        for c in (containers.get("containers") or {}).get("container", []):
            if app_suffix in c["id"] and c["state"] != "COMPLETE":
                live.append((c["id"], c["state"]))
    return live


def staging_exists(conf_dir, app_id):
    http = site_property(conf_dir, "hdfs-site.xml", "dfs.namenode.http-address")
    user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
    url = f"http://{http}/webhdfs/v1/user/{user}/.tony/{app_id}?op=GETFILESTATUS&user.name={user}"
    try:
        urllib.request.urlopen(url, timeout=10)
        return True
    except urllib.error.HTTPError as e:
        assert e.code == 404, e
        return False


def start_job(tmp_path, conf_dir, script):
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = conf_dir
    src = tmp_path / "src"
    write(str(src / "job.py"), script)
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "2",
        "tony.worker.memory": "256m", "tony.am.memory": "256m"})
    proc = tony.start("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                      "--src_dir", str(src), "--conf_file", xml)
    return tony, proc


def await_tasks_running(tony, conf_dir):
    """The application id once the RM says RUNNING and both tasks run (the client's mirror)."""
    def running():
        app = tony.running_job(tasks=2)
        return app if app and rm_app(conf_dir, app)["state"] == "RUNNING" else None
    return eventually(running, timeout=180, interval=0.5, what="both tasks running")


def test_application_finishes_and_cleans_up_after_the_client_is_killed(minicluster, tmp_path):
    tony, proc = start_job(tmp_path, minicluster,
                           "import time\nprint('working', flush=True)\ntime.sleep(15)\n"
                           "print('done', flush=True)\n")
    try:
        app_id = await_tasks_running(tony, minicluster)
        assert staging_exists(minicluster, app_id)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        # Nobody follows the application now; it must still run to its end on its own.
        app = eventually(lambda: (lambda a: a if a["state"] in ("FINISHED", "FAILED", "KILLED")
                                  else None)(rm_app(minicluster, app_id)),
                         timeout=180, interval=1, what="the application to end")
        assert app["state"] == "FINISHED" and app["finalStatus"] == "SUCCEEDED", app
        # Nobody mirrored the end into the job dir: `tony status` asks the RM (before: RUNNING).
        st = tony.run("status", app_id)
        assert st.returncode == 0, st.stdout + st.stderr
        assert "FINISHED SUCCEEDED" in st.stdout and "RUNNING" not in st.stdout, st.stdout
        assert tony.status(app_id)["final_status"] == "SUCCEEDED"
        # The AM removed the staging dir after unregistering: the client could not.
        eventually(lambda: not staging_exists(minicluster, app_id), timeout=30, interval=0.5,
                   what="the staging dir to be removed")
        eventually(lambda: not live_containers(minicluster, app_id), timeout=60, interval=0.5,
                   what="no container of the application left on any NodeManager")
        assert_nothing_left(app_id, timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ctrl_c_kills_the_application_and_the_client_exits_promptly(minicluster, tmp_path):
    tony, proc = start_job(tmp_path, minicluster,
                           "import time\nprint('sleeping', flush=True)\ntime.sleep(300)\n")
    try:
        app_id = await_tasks_running(tony, minicluster)
        interrupted = time.monotonic()
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=90)
        took = time.monotonic() - interrupted
        assert proc.returncode != 0, out + err
        assert took < 45, f"the client took {took:.0f} s to exit after Ctrl-C"
        assert f"interrupted; stopping {app_id}" in err, out + err
        assert re.search(rf"job {app_id} KILLED", out), out + err
        app = rm_app(minicluster, app_id)
        assert app["finalStatus"] == "KILLED", app
        assert app["state"] in ("FINISHED", "KILLED"), app
        assert not staging_exists(minicluster, app_id)
        eventually(lambda: not live_containers(minicluster, app_id), timeout=60, interval=0.5,
                   what="no container of the application left on any NodeManager")
        assert_nothing_left(app_id, timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_client_that_missed_the_running_am_reads_its_final_status_after_the_end(
        minicluster, tmp_path):
    """The AM unregisters at the job's end and then waits for its client; a client that never
    reached the AM while the job ran (here: stopped from its submission until the RM said
    FINISHED) still gets every task's end from it, not only the RM's report."""
    tony, proc = start_job(tmp_path, minicluster, "print('quick', flush=True)\n")
    stopped = False
    try:
        lines = []
        while not any(line.startswith("tony: job dir") for line in lines):
            line = proc.stdout.readline()
            assert line, "".join(lines) + proc.stderr.read()
            lines.append(line)
        # Submitted, and the client has not asked the RM about it yet: stop it there.
        os.kill(proc.pid, signal.SIGSTOP)
        stopped = True
        app_id = re.search(r"application (application_\d+_\d+) submitted", "".join(lines)).group(1)
        app = eventually(lambda: (lambda a: a if a["state"] in ("FINISHED", "FAILED", "KILLED")
                                  else None)(rm_app(minicluster, app_id)),
                         timeout=120, interval=0.2, what="the application to end")
        assert app["finalStatus"] == "SUCCEEDED", app
        os.kill(proc.pid, signal.SIGCONT)
        stopped = False
        out, err = proc.communicate(timeout=60)
        out = "".join(lines) + out
        assert proc.returncode == 0, out + err
        # The premise: the client saw the application only before the AM ran and after it ended.
        assert f"application {app_id} is RUNNING" not in out, out
        status = tony.status(app_id)
        workers = [t for t in status["tasks"] if t["role"] == "worker"]
        assert [t["state"] for t in workers] == ["SUCCEEDED", "SUCCEEDED"], status
        assert all(t.get("log_url") and t.get("container_id") for t in workers), status
        assert status["engine"] == "yarn" and status["final_status"] == "SUCCEEDED", status
        assert_nothing_left(app_id, timeout=30)
    finally:
        if stopped:
            os.kill(proc.pid, signal.SIGCONT)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
