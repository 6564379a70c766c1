"""`tony status <appId>` from another TONY_HOME on the Kerberized minicluster: the running job's
tasks come from the AM through the ResourceManager's web proxy (the status endpoint answers only
the proxy). Its own cluster: after the fourteen jobs and refusals of test_secure_submit.py, the
shared cluster once failed to run this job's tasks within 180 s in CI (cause not found), so this
test starts from a fresh one."""
import os
import re
import subprocess

import pytest

from test_secure_submit import secure_tony
from tonytest import SYSTEM_PYTHON, Tony, eventually, stop_and_read, tony_xml, write, yarn_logs


@pytest.fixture(scope="module")
def cluster(shared_secure_cluster):
    """The tier's shared cluster (conftest.py)."""
    return shared_secure_cluster


# A task that runs until the test lets it go.
WAIT = """import os, sys, time
deadline = time.time() + 300
while not os.path.exists(sys.argv[1]) and time.time() < deadline:
    time.sleep(0.2)
"""


def test_status_from_another_home_reads_the_am_through_the_proxy_with_spnego(tmp_path, cluster):
    tony = secure_tony(tmp_path, cluster)
    other = Tony(tmp_path / "other")
    other.use(cluster.env())
    src = tmp_path / "src"
    release = tmp_path / "release"
    write(str(src / "job.py"), WAIT)
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "2",
        "tony.worker.memory": "256m", "tony.am.memory": "256m"})
    proc = tony.start("submit", "--executes", "job.py", "--task_params", str(release),
                      "--python_binary_path", SYSTEM_PYTHON, "--src_dir", str(src),
                      "--conf_file", xml)
    try:
        try:
            app_id = eventually(lambda: tony.running_job(tasks=2), timeout=180, interval=0.5,
                                what="both tasks running")
        except AssertionError as e:
            state = [(j, open(os.path.join(tony.job_dir(j), "status.json")).read()
                      if os.path.exists(os.path.join(tony.job_dir(j), "status.json")) else None)
                     for j in tony.jobs()]
            raise AssertionError(f"{e}\njobs: {state}\n{stop_and_read(proc)}\n"
                                 f"{yarn_logs(cluster.conf_dir)}") from None
        st = other.run("status", app_id)
        assert st.returncode == 0, st.stdout + st.stderr
        rows = re.findall(r"^worker\s+(\d)\s+RUNNING\b", st.stdout, re.M)
        assert sorted(rows) == ["0", "1"], st.stdout + st.stderr
    finally:
        release.write_text("go")
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
