"""tony.containers.resources, tony.<role>.resources, tony.am.resources and --hdfs_classpath on a
real YARN (MiniYARNCluster + MiniDFS): local files and directories are uploaded, hdfs:// paths
are localized by the NodeManagers directly (with the NameNode's size and time, which YARN
checks), #archive unpacked, ::NAME renamed, each role seeing only its own; and the
application's name, type, tags and queue as the RM reports them. One module, one minicluster."""
import json
import urllib.error
import urllib.request
import uuid
import io
import zipfile

from tonytest import SYSTEM_PYTHON, Tony, tony_xml, write
from minicluster import hdfs_put, site_property

CHECK = r"""
import os
role = os.environ["JOB_NAME"]
def read(p):
    return open(p).read().strip()
assert read("extra.txt") == "extra", "a local file"
assert read("env/bin/tool") == "tool", "an hdfs:// zip unpacked by #archive under ::NAME"
assert read("notes.txt") == "notes", "an hdfs:// file"
assert read("libs/a.jar") == "jar", "an --hdfs_classpath directory"
assert os.path.exists("conf/settings.ini") == (role == "worker"), "worker's directory in " + role
assert not os.path.exists("am-only.txt"), "tony.am.resources reached a task"
print("resources ok in", role, flush=True)
"""


def rm_app(conf_dir, app_id):
    """The RM's own report of the application (REST)."""
    web = site_property(conf_dir, "yarn-site.xml", "yarn.resourcemanager.webapp.address")
    req = urllib.request.Request(f"http://{web}/ws/v1/cluster/apps/{app_id}",
                                 headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)["app"]


def test_every_kind_of_resource_reaches_the_containers_that_asked(minicluster, tmp_path):
    base = f"/tmp/tony-resources-{uuid.uuid4().hex[:8]}"
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("bin/tool", "tool\n")
    hdfs_put(minicluster, f"{base}/env.zip", archive.getvalue())
    hdfs_put(minicluster, f"{base}/notes.txt", b"notes\n")
    hdfs_put(minicluster, f"{base}/libs/a.jar", b"jar\n")
    write(str(tmp_path / "res" / "extra.txt"), "extra\n")
    write(str(tmp_path / "res" / "am-only.txt"), "am\n")
    write(str(tmp_path / "res" / "conf" / "settings.ini"), "settings\n")
    src = tmp_path / "src"
    write(str(src / "check.py"), CHECK)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        # No chief: the job waits for both tasks, so both ran their checks.
        "tony.application.framework": "generic", "tony.worker.instances": "1",
        "tony.evaluator.instances": "1", "tony.worker.memory": "256m",
        "tony.evaluator.memory": "256m", "tony.application.untracked.jobtypes": "",
        "tony.am.memory": "256m",
        "tony.containers.resources": f"{tmp_path}/res/extra.txt,"
                                     f"hdfs://{base}/env.zip::env#archive,hdfs://{base}/notes.txt",
        "tony.worker.resources": f"{tmp_path}/res/conf",
        "tony.am.resources": f"{tmp_path}/res/am-only.txt",
        # The application's identity keys, checked in the RM's own report below.
        "tony.application.name": "resources-check", "tony.application.type": "TONYTEST",
        "tony.application.tags": "alpha,beta", "tony.yarn.queue": "default"})
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = minicluster
    r = tony.run("submit", "--executes", "check.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf,
                 "--hdfs_classpath", f"{base}/libs,{base}/missing", timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"--hdfs_classpath hdfs://{base}/missing does not exist; skipped" in r.stderr, r.stderr
    app_id = tony.jobs()[-1]
    app = rm_app(minicluster, app_id)
    assert (app["name"], app["applicationType"], app["queue"]) == \
        ("resources-check", "TONYTEST", "root.default"), app
    assert sorted(app["applicationTags"].split(",")) == ["alpha", "beta"], app
    for role in ("worker", "evaluator"):
        logs = tony.run("logs", tony.jobs()[-1], "--task", f"{role}:0", "--stream", "stdout")
        assert f"resources ok in {role}" in logs.stdout, logs.stdout + logs.stderr


def test_a_missing_hdfs_resource_is_refused_before_submitting(minicluster, tmp_path):
    src = tmp_path / "src"
    write(str(src / "check.py"), CHECK)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "1", "tony.worker.memory": "256m", "tony.am.memory": "256m",
        "tony.worker.resources": "hdfs:///tmp/no-such-resource.zip#archive"})
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = minicluster
    r = tony.run("submit", "--executes", "check.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf, timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "resource hdfs:///tmp/no-such-resource.zip#archive" in r.stderr, r.stderr
    assert "submitted to the ResourceManager" not in r.stdout
