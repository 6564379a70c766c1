"""WebHDFS over TLS ("swebhdfs") on an HTTPS-only minicluster (start.sh --https: dfs.http.policy
and yarn.http.policy HTTPS_ONLY, a self-signed certificate made by keytool, the client's
ssl-client.xml naming a PKCS12 trust store). A job stages and runs with only https open to the
NameNode, `tony logs` reads the NodeManagers over https, and a client that does not trust the
cluster's certificate stops before anything is staged. One minicluster for the module."""
import getpass
import json
import os
import shutil
import socket
import ssl
import subprocess
import urllib.error
import urllib.request

from minicluster import minicluster_fixture, site_property
from tonytest import SYSTEM_PYTHON, Tony, assert_nothing_left, tony_xml, write

SCRIPT = """
import os, ssl, urllib.request
print(f"hello over tls from {os.environ['JOB_NAME']}:{os.environ['TASK_INDEX']}", flush=True)
# The task's own WebHDFS read: the https base URL and the cluster's CAs from tony.
ctx = ssl.create_default_context(cafile=os.environ["TONY_WEBHDFS_CA_FILE"])
url = os.environ["TONY_WEBHDFS_URL"] + "/data/tls.txt?op=OPEN"
print("task read over tls:", urllib.request.urlopen(url, context=ctx, timeout=30).read().decode(),
      flush=True)
"""


cluster = minicluster_fixture(nodemanagers=1, flags=("--https",))


def tls_context(conf_dir):
    return ssl.create_default_context(cafile=os.path.join(conf_dir, "ca.pem"))


def webhdfs_https(conf_dir, path, op):
    """GET a WebHDFS op over https, trusting the cluster's CA: the test's own view of HDFS."""
    https = site_property(conf_dir, "hdfs-site.xml", "dfs.namenode.https-address")
    user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
    url = f"https://{https}/webhdfs/v1{path}?op={op}&user.name={user}"
    return urllib.request.urlopen(url, timeout=10, context=tls_context(conf_dir))


def hdfs_put_https(conf_dir, path, data):
    """WebHDFS CREATE over https: the NameNode redirects the PUT to the DataNode's https port."""
    https = site_property(conf_dir, "hdfs-site.xml", "dfs.namenode.https-address")
    user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
    url = f"https://{https}/webhdfs/v1{path}?op=CREATE&overwrite=true&user.name={user}"
    ctx = tls_context(conf_dir)
    try:
        urllib.request.urlopen(urllib.request.Request(url, method="PUT"), timeout=30, context=ctx)
        raise AssertionError("WebHDFS CREATE did not redirect")
    except urllib.error.HTTPError as e:
        assert e.code == 307, e
        location = e.headers["Location"]
    assert location.startswith("https://"), location
    with urllib.request.urlopen(urllib.request.Request(location, data=data, method="PUT"),
                                timeout=30, context=ctx) as r:
        assert r.status == 201, r.status


def staging_exists(conf_dir, app_id):
    user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
    try:
        webhdfs_https(conf_dir, f"/user/{user}/.tony/{app_id}", "GETFILESTATUS")
        return True
    except urllib.error.HTTPError as e:
        assert e.code == 404, e
        return False


def staged_apps(conf_dir):
    """The application dirs under the user's staging root (none if the root does not exist)."""
    user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
    try:
        with webhdfs_https(conf_dir, f"/user/{user}/.tony", "LISTSTATUS") as r:
            return sorted(s["pathSuffix"] for s in json.load(r)["FileStatuses"]["FileStatus"])
    except urllib.error.HTTPError as e:
        assert e.code == 404, e
        return []


def rm_apps(conf_dir):
    """The RM's own list of applications, over its https REST API."""
    web = site_property(conf_dir, "yarn-site.xml", "yarn.resourcemanager.webapp.https.address")
    req = urllib.request.Request(f"https://{web}/ws/v1/cluster/apps",
                                 headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=10, context=tls_context(conf_dir)) as r:
        apps = json.load(r)["apps"]
    return {a["id"]: a for a in (apps or {}).get("app", [])}


def submit(tony, tmp_path, **props):
    src = tmp_path / "src"
    write(str(src / "job.py"), SCRIPT)
    conf = {"tony.application.framework": "pytorch", "tony.worker.instances": "1",
            "tony.worker.memory": "256m", "tony.am.memory": "256m"}
    conf.update(props)
    xml = tony_xml(str(tmp_path / "tony.xml"), conf)
    return tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                    "--src_dir", str(src), "--conf_file", xml, timeout=300)


def yarn_tony(tmp_path, conf_dir):
    t = Tony(tmp_path / "home")
    t.env["HADOOP_CONF_DIR"] = conf_dir
    return t


def test_plain_http_to_the_namenode_gets_no_webhdfs(cluster):
    """HTTPS_ONLY: the NameNode serves no plain HTTP, so staging can only have gone over TLS."""
    https = site_property(cluster, "hdfs-site.xml", "dfs.namenode.https-address")
    assert site_property(cluster, "hdfs-site.xml", "dfs.http.policy") == "HTTPS_ONLY"
    host, port = https.rsplit(":", 1)
    # Plain HTTP to the TLS port: the server answers with no WebHDFS reply.
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"GET /webhdfs/v1/?op=GETFILESTATUS HTTP/1.1\r\nHost: x\r\n\r\n")
        s.settimeout(10)
        try:
            reply = s.recv(4096)
        except (ConnectionResetError, socket.timeout):
            reply = b""
    assert b"FileStatus" not in reply, reply
    # And there is no http server: the NameNode never bound the http address it was given.
    assert site_property(cluster, "hdfs-site.xml", "dfs.namenode.http-address").endswith(":0")


def test_a_job_stages_and_runs_over_tls_and_logs_come_over_https(cluster, tmp_path):
    """Trust from the cluster's ssl-client.xml: its PKCS12 trust store, converted by tony. The
    task reads HDFS over TLS too, with the CAs tony hands it."""
    hdfs_put_https(cluster, "/data/tls.txt", b"cluster data over tls")
    tony = yarn_tony(tmp_path, cluster)
    r = submit(tony, tmp_path)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    app_id = tony.jobs()[-1]
    assert f"job {app_id} SUCCEEDED" in r.stdout, out
    assert not staging_exists(cluster, app_id)
    status = tony.status(app_id)
    (task,) = status["tasks"]
    # yarn.http.policy=HTTPS_ONLY: the NodeManager's log URL is https, and tony reads it.
    assert task["log_url"].startswith("https://"), task
    logs = tony.run("logs", app_id, "--task", "worker:0")
    assert logs.returncode == 0, logs.stdout + logs.stderr
    assert "hello over tls from worker:0" in logs.stdout, logs.stdout + logs.stderr
    assert "task read over tls: cluster data over tls" in logs.stdout, logs.stdout + logs.stderr
    am = tony.run("logs", app_id)
    assert am.returncode == 0, am.stdout + am.stderr
    assert "removed the staging dir" in am.stdout, am.stdout + am.stderr


def test_a_ca_that_does_not_vouch_for_the_namenode_stops_the_submit(cluster, tmp_path):
    """tony.application.ssl.ca-file replaces the trust store: another CA's certificate must make
    the submit fail, naming the NameNode and the certificate problem, with nothing staged or
    submitted."""
    other = tmp_path / "other-ca"
    other.mkdir()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(other / "key.pem"), "-out", str(other / "ca.pem")],
                   check=True, capture_output=True)
    apps_before = set(rm_apps(cluster))
    staged_before = staged_apps(cluster)
    tony = yarn_tony(tmp_path, cluster)
    r = submit(tony, tmp_path, **{"tony.application.ssl.ca-file": str(other / "ca.pem")})
    err = r.stderr
    assert r.returncode != 0, r.stdout + err
    https = site_property(cluster, "hdfs-site.xml", "dfs.namenode.https-address")
    assert f"the NameNode {https}" in err, err
    assert "TLS certificate was not accepted" in err and "certificate" in err.lower(), err
    assert f"tony.application.ssl.ca-file {other / 'ca.pem'}" in err, err
    assert set(rm_apps(cluster)) == apps_before
    assert staged_apps(cluster) == staged_before
    assert_nothing_left(str(tmp_path / "home"))


def test_a_jks_trust_store_is_refused_naming_it_and_the_way_out(cluster, tmp_path):
    conf = tmp_path / "conf"
    shutil.copytree(cluster, conf, ignore=shutil.ignore_patterns("data", "ssl", "sslconf"))
    jks = tmp_path / "truststore.jks"
    subprocess.run(["keytool", "-importcert", "-noprompt", "-alias", "ca", "-file",
                    os.path.join(cluster, "ca.pem"), "-storetype", "JKS", "-keystore", str(jks),
                    "-storepass", "changeit"], check=True, capture_output=True)
    write(str(conf / "ssl-client.xml"),
          "<configuration><property><name>ssl.client.truststore.location</name>"
          f"<value>{jks}</value></property></configuration>\n")
    tony = yarn_tony(tmp_path, str(conf))
    r = submit(tony, tmp_path)
    assert r.returncode != 0, r.stdout + r.stderr
    for part in (str(jks), "JKS", "tony.application.ssl.ca-file", "pkcs12"):
        assert part in r.stderr, (part, r.stderr)


def test_a_redirect_to_a_datanode_not_listed_stops_the_upload(cluster, tmp_path):
    """tony.application.webhdfs.datanode-hosts: the NameNode's 307 names this cluster's DataNode,
    which is not listed, so no byte of the job is sent and what was staged goes."""
    apps_before = set(rm_apps(cluster))
    staged_before = staged_apps(cluster)
    tony = yarn_tony(tmp_path, cluster)
    r = submit(tony, tmp_path, **{"tony.application.webhdfs.datanode-hosts": "datanode.invalid"})
    assert r.returncode != 0, r.stdout + r.stderr
    https = site_property(cluster, "hdfs-site.xml", "dfs.namenode.https-address")
    assert f"the NameNode {https} redirected to https://" in r.stderr, r.stderr
    assert "is not in tony.application.webhdfs.datanode-hosts (datanode.invalid)" in r.stderr, \
        r.stderr
    assert set(rm_apps(cluster)) == apps_before
    assert staged_apps(cluster) == staged_before
