"""Application ACLs (README "Application ACLs", issue 28) on a minicluster of its own with
yarn.acl.enable=true, where nobody but the RM's own user (who submits here) is a YARN admin or
administers the queue: the ResourceManager, not tony, decides who may view and kill the job, from
the ACLs tony put into the submission (tony.application.view-acls / modify-acls).

The cluster is open (SIMPLE auth): other users are played with HADOOP_USER_NAME, which the RM
takes as the caller on such a cluster. A Kerberized second user would need the secure tier's KDC;
the ACL check the RM makes is the same.

Proves: alice, named in both ACLs, sees the live task table (through the RM's web proxy) and can
`tony kill` the job; mallory, in neither, sees no task of it and her `tony kill` fails with a
message that names the job and says permission denied (no Java stack), the job running on."""
import os

from minicluster import minicluster_fixture
from tonytest import SYSTEM_PYTHON, Tony, eventually, tony_xml, write
from test_yarn_client_death import rm_app
from test_yarn_status_anywhere import TASK, status_of, task_rows

ACLS_ON = {
    "yarn.acl.enable": "true",
    # Hadoop's defaults make everyone an admin ("*") and root's administrator: only the RM's own
    # user (always an admin) stays one here.
    "yarn.admin.acl": " ",
    "yarn.scheduler.capacity.root.acl_administer_queue": " ",
    "yarn.scheduler.capacity.root.default.acl_administer_queue": " ",
}


acl_cluster = minicluster_fixture(nodemanagers=1, conf=ACLS_ON)


def as_user(home, conf_dir, user):
    tony = Tony(home)
    tony.env["HADOOP_CONF_DIR"] = conf_dir
    if user:
        tony.env["HADOOP_USER_NAME"] = user
    return tony


def test_application_acls_decide_who_may_view_and_kill(acl_cluster, tmp_path):
    owner = as_user(tmp_path / "owner", acl_cluster, None)
    alice = as_user(tmp_path / "alice", acl_cluster, "alice")
    mallory = as_user(tmp_path / "mallory", acl_cluster, "mallory")
    src = tmp_path / "src"
    release = tmp_path / "release"
    write(str(src / "job.py"), TASK)
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.application.name": "acls",
        "tony.worker.instances": "2", "tony.worker.memory": "256m", "tony.am.memory": "256m",
        "tony.application.view-acls": "alice", "tony.application.modify-acls": "alice"})
    proc = owner.start("submit", "--executes", "job.py", "--task_params", str(release),
                       "--python_binary_path", SYSTEM_PYTHON, "--src_dir", str(src),
                       "--conf_file", xml)
    try:
        def running():
            app = owner.running_job(tasks=2)
            return app if app and rm_app(acl_cluster, app)["state"] == "RUNNING" else None
        app_id = eventually(running, timeout=180, interval=0.5, what="both tasks running")

        # alice is in the view ACL: the live table, through the RM's web proxy.
        st, rows = status_of(alice, app_id)
        assert st.returncode == 0, st.stdout + st.stderr
        assert rows == {"worker:0": "RUNNING", "worker:1": "RUNNING"}, st.stdout + st.stderr

        # mallory is not: the RM withholds the job's details, and tony says why.
        st, rows = status_of(mallory, app_id)
        assert rows == {}, st.stdout + st.stderr
        assert "may not view" in st.stdout + st.stderr, st.stdout + st.stderr

        # mallory is not in the modify ACL: the RM refuses her kill; the job runs on.
        kill = mallory.run("kill", app_id)
        assert kill.returncode != 0, kill.stdout + kill.stderr
        assert f"tony kill {app_id}: permission denied: user mallory" in kill.stderr, kill.stderr
        assert "\tat " not in kill.stderr and "Exception.java" not in kill.stderr, kill.stderr
        assert rm_app(acl_cluster, app_id)["state"] == "RUNNING"

        # alice is: her kill ends it.
        kill = alice.run("kill", app_id)
        assert kill.returncode == 0, kill.stdout + kill.stderr
        assert f"job {app_id} KILLED" in kill.stdout, kill.stdout + kill.stderr
        assert rm_app(acl_cluster, app_id)["state"] == "KILLED"
    finally:
        release.write_text("go")
        try:
            proc.wait(timeout=120)
        except Exception:
            proc.kill()
