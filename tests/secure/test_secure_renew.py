"""HDFS delegation tokens past their maximum lifetime (issue 9), on a Kerberized minicluster of its
own whose HDFS tokens live at most MAX_LIFETIME_MS (dfs.namenode.delegation.token.max-lifetime)
and die RENEW_INTERVAL_MS after their issue or last renewal:

- a job submitted with --principal/--keytab keeps reading HDFS for more than twice the maximum
  lifetime: the AM gets new tokens from the keytab and every executor writes them into the token
  file its task reads ($HADOOP_TOKEN_FILE_LOCATION);
- the same job submitted from the ticket cache (no keytab) fails with the token's own error once
  the maximum lifetime has passed, as the README says.
"""
import os
import re
import subprocess

import pytest

from minicluster import site_property as site
from secure_cluster import running_secure_minicluster
from tonytest import SYSTEM_PYTHON, Tony, tony_xml, write

MAX_LIFETIME_MS = 40_000
RENEW_INTERVAL_MS = 20_000
WAIT_SECONDS = 2 * MAX_LIFETIME_MS / 1000 + 5

# Reads /user/alice/data.txt over WebHDFS with the default file system's token as the token file
# holds it at that moment (a Hadoop credentials file, Writable format), at the start and again
# after WAIT_SECONDS.
READER = r"""
import base64, os, sys, time, urllib.error, urllib.request

def vlong(b, i):  # Hadoop's WritableUtils.readVLong
    first = b[i] - 256 if b[i] >= 128 else b[i]
    i += 1
    if first >= -112:
        return first, i
    negative = first < -120
    v = 0
    for _ in range((-120 - first) if negative else (-112 - first)):
        v = (v << 8) | b[i]
        i += 1
    return (~v if negative else v), i

def tokens(path):
    b = open(path, "rb").read()
    assert b[:5] == b"HDTS\x00", b[:5]
    count, i = vlong(b, 5)
    out = {}
    for _ in range(count):
        n, i = vlong(b, i)
        i += n  # the alias
        start, fields = i, []
        for _ in range(4):  # identifier, password, kind, service
            n, i = vlong(b, i)
            fields.append(b[i:i + n])
            i += n
        out[fields[3].decode()] = base64.urlsafe_b64encode(b[start:i]).rstrip(b"=").decode()
    return out

nn = os.environ["TONY_NAMENODE_HTTP_ADDRESS"].split(",")[0]

def read(label):
    token = tokens(os.environ["HADOOP_TOKEN_FILE_LOCATION"])[os.environ["TONY_HDFS_TOKEN_SERVICE"]]
    url = "http://%s/webhdfs/v1/user/alice/data.txt?op=OPEN&delegation=%s" % (nn, token)
    try:
        text = urllib.request.urlopen(url, timeout=30).read().decode().strip()
    except urllib.error.HTTPError as e:
        print("%s: HTTP %d: %s" % (label, e.code, e.read().decode(errors="replace")[:400]),
              flush=True)
        sys.exit(3)
    print("%s: read %r" % (label, text), flush=True)

secrets = open(os.environ["HADOOP_TOKEN_FILE_LOCATION"], "rb").read()
print("token file holds the keytab: %s" % (b"tony.kerberos" in secrets), flush=True)
read("at the start")
time.sleep(float(os.environ["WAIT_SECONDS"]))
read("past the maximum lifetime")
"""


@pytest.fixture(scope="module")
def cluster():
    conf = {"dfs.namenode.delegation.token.max-lifetime": str(MAX_LIFETIME_MS),
            "dfs.namenode.delegation.token.renew-interval": str(RENEW_INTERVAL_MS)}
    # The AM logs in from the keytab inside its container: the node must know the KDC.
    with running_secure_minicluster("authentication", conf=conf, realm_on_nodes=True) as sc:
        nn = site(sc.conf_dir, "hdfs-site.xml", "dfs.namenode.http-address")
        data = os.path.join(sc.kdc.root, "data.txt")
        write(data, "training data\n")
        for args in (["-X", "PUT", f"http://{nn}/webhdfs/v1/user/alice?op=MKDIRS"],
                     ["-L", "-X", "PUT", "-T", data,
                      f"http://{nn}/webhdfs/v1/user/alice/data.txt?op=CREATE&overwrite=true"]):
            r = subprocess.run(["curl", "-sf", "--negotiate", "-u", ":", *args], env=sc.env(),
                               capture_output=True, text=True)
            assert r.returncode == 0, (args, r.returncode, r.stderr)
        yield sc


def start(tmp_path, cluster, ccache=None, flags=()):
    """Starts `tony submit` of the reader job in the background; finish() waits for it."""
    tony = Tony(tmp_path / "home")
    tony.use(cluster.env(ccache))
    src = tmp_path / "src"
    write(str(src / "reader.py"), READER)
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "1",
        "tony.worker.memory": "256m", "tony.am.memory": "256m",
        "tony.execution.envs": f"WAIT_SECONDS={WAIT_SECONDS}"})
    return tony.start("submit", "--executes", "reader.py", "--python_binary_path", SYSTEM_PYTHON,
                      "--src_dir", str(src), "--conf_file", xml, *flags)


def finish(proc):
    try:
        out, err = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"tony submit still running after 300 s:\n{out}\n{err}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.fixture(scope="module")
def jobs(tmp_path_factory, cluster):
    """Both jobs, the keytab one and the ticket-cache one, submitted at once: each waits more than
    twice the tokens' maximum lifetime, and the two waits need not add up."""
    keytab_dir, ticket_dir = (tmp_path_factory.mktemp(n) for n in ("keytab", "ticket"))
    keytab = start(keytab_dir, cluster, ccache=str(keytab_dir / "no-such-cache"),
                   flags=("--principal", cluster.user, "--keytab", cluster.user_keytab))
    ticket = start(ticket_dir, cluster)
    return {"keytab": finish(keytab), "ticket": finish(ticket)}


def app_logs(cluster, r):
    """Every AM and task log of the application `r` submitted, each headed by its path."""
    app = re.search(r"application (application_\d+_\d+)", r.stdout + r.stderr)
    assert app, r.stdout + r.stderr
    out = []
    for root, _, files in os.walk(os.path.join(cluster.conf_dir, "data")):
        if app.group(1) not in root or "container_" not in root:
            continue
        for f in sorted(files):
            if f in ("am.log", "executor.log", "stdout", "stderr"):
                out.append(f"--- {root}/{f}\n" +
                           open(os.path.join(root, f), errors="replace").read())
    return "\n".join(out)


def test_a_keytab_job_reads_hdfs_past_the_maximum_lifetime(jobs, cluster):
    r = jobs["keytab"]
    out = r.stdout + r.stderr + app_logs(cluster, r)
    assert r.returncode == 0, out
    assert "at the start: read 'training data'" in out, out
    assert "past the maximum lifetime: read 'training data'" in out, out
    assert "HDFS delegation token renewed: a new HDFS_DELEGATION_TOKEN" in out, out
    assert re.search(r"renewed delegation tokens \(renewal \d+\) in \S+container_tokens", out), out
    # The keytab reached the AM only: the task's token file holds no key of it.
    assert "token file holds the keytab: False" in out, out


def test_without_a_keytab_the_token_dies_at_its_maximum_lifetime(jobs, cluster):
    r = jobs["ticket"]
    out = r.stdout + r.stderr + app_logs(cluster, r)
    assert r.returncode != 0, out
    assert "at the start: read 'training data'" in out, out
    assert re.search(r"past the maximum lifetime: HTTP \d+: .*expired", out), out
    assert "HDFS delegation token renewed" not in out, out
