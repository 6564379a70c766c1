"""A Kerberized cluster that serves WebHDFS over TLS only (start.sh --https: dfs.http.policy and
yarn.http.policy HTTPS_ONLY, keytool's self-signed certificate, ssl-client.xml's PKCS12 trust
store): staging goes over swebhdfs with SPNEGO, and the task reads HDFS over TLS with its
delegation token and the CAs tony hands it, holding no Kerberos ticket. Its own cluster."""
import os
import subprocess

import pytest

from minicluster import site_property
from secure_cluster import running_secure_minicluster
from tonytest import SYSTEM_PYTHON, Tony, tony_xml, write, yarn_logs


@pytest.fixture(scope="module")
def cluster():
    with running_secure_minicluster("authentication", nodemanagers=1, flags=("--https",)) as sc:
        yield sc


READER = """
import os, ssl, urllib.request
ctx = ssl.create_default_context(cafile=os.environ["TONY_WEBHDFS_CA_FILE"])
base = os.environ["TONY_WEBHDFS_URL"]
token = os.environ["TONY_HDFS_DELEGATION_TOKEN"]
print("base", base.split(":")[0], flush=True)
url = base + "/user/alice/tls.txt?op=OPEN&delegation=" + token
print("task read over tls:", urllib.request.urlopen(url, context=ctx, timeout=30).read().decode(),
      flush=True)
"""


def test_staging_and_the_tasks_hdfs_reads_go_over_tls_on_a_kerberized_cluster(tmp_path, cluster):
    https = site_property(cluster.conf_dir, "hdfs-site.xml", "dfs.namenode.https-address")
    assert site_property(cluster.conf_dir, "hdfs-site.xml", "dfs.http.policy") == "HTTPS_ONLY"
    data = tmp_path / "tls.txt"
    data.write_text("secure data over tls")
    ca = os.path.join(cluster.conf_dir, "ca.pem")
    for args in (["-X", "PUT", f"https://{https}/webhdfs/v1/user/alice?op=MKDIRS"],
                 ["-L", "-X", "PUT", "-T", str(data),
                  f"https://{https}/webhdfs/v1/user/alice/tls.txt?op=CREATE&overwrite=true"]):
        r = subprocess.run(["curl", "-sf", "--cacert", ca, "--negotiate", "-u", ":", *args],
                           env=cluster.env(), capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, (args, r.returncode, r.stderr)

    tony = Tony(tmp_path / "home").use(cluster.env())
    write(str(tmp_path / "src" / "reader.py"), READER)
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "1",
        "tony.worker.memory": "256m", "tony.am.memory": "256m"})
    r = tony.run("submit", "--executes", "reader.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(tmp_path / "src"), "--conf_file", xml, timeout=300)
    out = r.stdout + r.stderr
    logs = yarn_logs(cluster.conf_dir, names=("stdout",))
    assert r.returncode == 0, out + logs
    assert "base https" in logs, out + logs
    assert "task read over tls: secure data over tls" in logs, out + logs
