"""`tony logs` on a Kerberized cluster whose web UIs ask for SPNEGO (Hadoop's
AuthenticationFilterInitializer on every web server, the NodeManagers' included): tony answers
the NodeManager's 401 with the user's ticket. Its own cluster: the filter is not on the shared one.

What this cannot show: the log itself. A Kerberized NodeManager reads container logs through
Hadoop's SecureIOUtils, which needs Hadoop's native library (libhadoop.so); the minicluster has
none, so the authenticated request ends in the NodeManager's own HTTP 500 "Secure IO is not
possible without native code extensions". The test asserts exactly that: past authentication,
stopped by the node's missing native code."""
import json
import os
import re
import subprocess

import pytest

from secure_cluster import running_secure_minicluster
from tonytest import SYSTEM_PYTHON, Tony, job_id_from, tony_xml, write


@pytest.fixture(scope="module")
def cluster():
    with running_secure_minicluster("authentication", conf={
            "hadoop.http.filter.initializers":
                "org.apache.hadoop.security.AuthenticationFilterInitializer"}) as sc:
        yield sc


HELLO = """import os
print("hello from " + os.environ["JOB_NAME"] + " " + os.environ["TASK_INDEX"], flush=True)
"""


def test_logs_authenticate_to_a_kerberized_nodemanager_with_spnego(tmp_path, cluster):
    tony = Tony(tmp_path / "home").use(cluster.env())
    write(str(tmp_path / "src" / "hello.py"), HELLO)
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "1",
        "tony.worker.memory": "256m", "tony.am.memory": "256m"})
    r = tony.run("submit", "--executes", "hello.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(tmp_path / "src"), "--conf_file", xml, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    app_id = job_id_from(r.stdout)
    status = json.load(open(os.path.join(tony.job_dir(app_id), "status.json")))
    urls = [t.get("log_url") for t in status["tasks"] if t["role"] == "worker"]
    assert urls and urls[0], (status, r.stdout + r.stderr)
    log_url = urls[0]
    # The NodeManager's web asks for SPNEGO: without it, 401 and no log.
    plain = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                            log_url + "/stdout"], capture_output=True, text=True, timeout=30)
    assert plain.stdout == "401", (log_url, plain.stdout, plain.stderr)

    for args in (("--task", "worker:0"), ()):  # a task's log, then the AM's
        r = tony.run("logs", app_id, *args)
        out = r.stdout + r.stderr
        assert "HTTP 401" not in out, out
        assert "HTTP 500" in out and "/ws/v1/node/containerlogs/" in out, out
