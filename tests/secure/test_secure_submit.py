"""`tony submit` on the Kerberized minicluster (tests/lib/secure_cluster.py, authentication): the
client logs in (ticket cache, or a keytab with no cache), talks to the RM over Kerberos, stages
over SPNEGO, and hands an RM and an HDFS delegation token to the AM, which passes the HDFS one to
every task; a 2-worker job succeeds, its tasks reading HDFS with their token alone (the script
fails the job otherwise) and seeing no AMRMToken. Without a ticket
the client stops before staging, with an error that names kinit."""
import os
import re
import subprocess

import pytest

from secure_cluster import running_secure_minicluster
from tonytest import SYSTEM_PYTHON, Tony, tony_xml, write

# Each task reads a file from HDFS over WebHDFS with the delegation token of its container's
# credentials file: no Kerberos ticket exists in the container.
SCRIPT = r"""
import os, struct, sys, base64, urllib.request
data = open(os.environ["HADOOP_TOKEN_FILE_LOCATION"], "rb").read()
assert data[:4] == b"HDTS", data[:4]
def vint(b, i):
    first = b[i] if b[i] < 128 else b[i] - 256
    if first >= -112:
        return first, i + 1
    n = (-119 - first) if first < -120 else (-111 - first)
    v = 0
    for k in range(n - 1):
        v = (v << 8) | b[i + 1 + k]
    return (~v if first < -120 else v), i + n
def field(b, i):
    n, i = vint(b, i)
    return b[i:i + n], i + n
i = 5
count, i = vint(data, i)
tokens = []
for _ in range(count):
    alias, i = field(data, i)
    ident, i = field(data, i)
    pw, i = field(data, i)
    kind, i = field(data, i)
    svc, i = field(data, i)
    tokens.append((ident, pw, kind, svc))
kinds = sorted(t[2].decode() for t in tokens)
print("token kinds:", kinds, flush=True)
assert "YARN_AM_RM_TOKEN" not in kinds, kinds
ident, pw, kind, svc = [t for t in tokens if t[2] == b"HDFS_DELEGATION_TOKEN"][0]
raw = bytes([len(ident)]) + ident + bytes([len(pw)]) + pw + bytes([len(kind)]) + kind + bytes([len(svc)]) + svc
url = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
nn = os.environ["TEST_NAMENODE_HTTP"]
body = urllib.request.urlopen(f"http://{nn}/webhdfs/v1/user/alice/input.txt?op=OPEN&delegation={url}").read()
print("read from hdfs:", body.decode().strip(), flush=True)
"""


@pytest.fixture(scope="module")
def cluster():
    with running_secure_minicluster("authentication") as sc:
        yield sc


def site(conf_dir, file, key):
    import xml.etree.ElementTree as ET
    for prop in ET.parse(os.path.join(conf_dir, file)).getroot().iter("property"):
        if prop.findtext("name") == key:
            return prop.findtext("value")
    return None


def secure_tony(tmp_path, cluster, ccache=None):
    t = Tony(tmp_path / "home")
    t.env.update(cluster.env(ccache))
    return t


def submit(tony, tmp_path, cluster, **props):
    src = tmp_path / "src"
    write(str(src / "job.py"), SCRIPT)
    conf = {"tony.application.framework": "pytorch", "tony.worker.instances": "2",
            "tony.worker.memory": "256m", "tony.am.memory": "256m",
            "tony.execution.envs": "TEST_NAMENODE_HTTP=" +
            site(cluster.conf_dir, "hdfs-site.xml", "dfs.namenode.http-address")}
    conf.update(props)
    xml = tony_xml(str(tmp_path / "tony.xml"), conf)
    return tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                    "--src_dir", str(src), "--conf_file", xml, timeout=300)


def put_input(cluster, tmp_path):
    nn = site(cluster.conf_dir, "hdfs-site.xml", "dfs.namenode.http-address")
    data = tmp_path / "input.txt"
    data.write_text("training data\n")
    for args in (["-X", "PUT", f"http://{nn}/webhdfs/v1/user/alice?op=MKDIRS"],
                 ["-L", "-X", "PUT", "-T", str(data),
                  f"http://{nn}/webhdfs/v1/user/alice/input.txt?op=CREATE&overwrite=true"]):
        r = subprocess.run(["curl", "-sf", "--negotiate", "-u", ":", *args], env=cluster.env(),
                           capture_output=True, text=True)
        assert r.returncode == 0, (r.returncode, r.stderr)


def task_logs(tony):
    out = ""
    for root, _, files in os.walk(tony.home):
        for f in files:
            if f in ("stdout", "stdout.log", "executor.log"):
                out += open(os.path.join(root, f), errors="replace").read()
    return out


def test_a_two_worker_job_succeeds_from_the_ticket_cache(tmp_path, cluster):
    put_input(cluster, tmp_path)
    tony = secure_tony(tmp_path, cluster)
    r = submit(tony, tmp_path, cluster)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert re.search(r"application application_\d+_\d+ FINISHED", out), out


def test_a_keytab_login_needs_no_ticket_cache(tmp_path, cluster):
    put_input(cluster, tmp_path)
    tony = secure_tony(tmp_path, cluster, ccache=str(tmp_path / "no-such-cache"))
    r = submit(tony, tmp_path, cluster, **{"tony.kerberos.principal": cluster.user,
                                           "tony.kerberos.keytab": cluster.user_keytab})
    out = r.stdout + r.stderr
    assert r.returncode == 0, out


def test_no_ticket_stops_before_staging_and_names_kinit(tmp_path, cluster):
    tony = secure_tony(tmp_path, cluster, ccache=str(tmp_path / "empty-cache"))
    r = submit(tony, tmp_path, cluster)
    assert r.returncode != 0
    assert "run kinit" in r.stderr, r.stderr
    assert not os.path.isdir(os.path.join(tony.home, "jobs")) or not os.listdir(
        os.path.join(tony.home, "jobs"))
