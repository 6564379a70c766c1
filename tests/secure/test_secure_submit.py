"""`tony submit` on the Kerberized minicluster (tests/lib/secure_cluster.py, authentication): the
client logs in (ticket cache, or a keytab with no cache), talks to the RM over Kerberos, stages
over SPNEGO, and hands an RM and an HDFS delegation token to the AM, which passes the HDFS one to
every task; a 2-worker job succeeds, its tasks reading HDFS with their token alone (the script
fails the job otherwise) and seeing no AMRMToken. --principal/--keytab log in with no ticket
cache; --proxy_user runs the job as bob (the RM's report says so), the cluster allowing alice to
impersonate bob only. Without a ticket, with an expired one, with a missing, unreadable or wrong
keytab and with a proxy user the cluster does not allow, the client stops before staging with an
error that says what to do (run kinit; the keytab, the principal and why; the hadoop.proxyuser
settings).

A submitter that holds tokens and no ticket (Oozie, Azkaban): a credentials file written by
Hadoop's own client code (tests/minicluster FetchTokens.java, as a scheduler would), no ticket
cache, only HADOOP_TOKEN_FILE_LOCATION: the job runs as the tokens' owner and its tasks read HDFS;
a second job with the same file runs too (the RM did not cancel the scheduler's tokens). With a
ticket, a file without an RM token is a warning and the ticket submits. A file without an RM delegation token (and no ticket) is refused naming that token and kinit; a
file that is not a credentials file is refused naming the variable and the path, and one whose RM
token was cancelled naming the file and the token; none stages anything.

While a job runs, `tony status <application id>` from another TONY_HOME shows its tasks: it reads
the AM's status endpoint through the RM's web proxy (the AM answers nobody else). The client asks
with Negotiate, but this minicluster's RM web app does not ask for SPNEGO (that takes
hadoop.http.filter.initializers, which would apply to every daemon in the JVM), so only that the
proxied read works on a Kerberized cluster is shown here, not the SPNEGO exchange."""
import os
import re
import subprocess
import time

import pytest

from minicluster import site_property as site
from secure_cluster import PROXY_USER, TOKEN_REMOVAL_MS, USER
from tonytest import SYSTEM_PYTHON, Tony, eventually, tony_xml, write

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


START = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "minicluster", "start.sh")

@pytest.fixture(scope="module")
def cluster(shared_secure_cluster):
    """The tier's shared cluster (conftest.py), whose RM forgets an ended application's tokens
    after TOKEN_REMOVAL_MS."""
    return shared_secure_cluster


def secure_tony(tmp_path, cluster, ccache=None):
    t = Tony(tmp_path / "home")
    t.use(cluster.env(ccache))
    return t


def submit(tony, tmp_path, cluster, flags=(), **props):
    src = tmp_path / "src"
    write(str(src / "job.py"), SCRIPT)
    conf = {"tony.application.framework": "pytorch", "tony.worker.instances": "2",
            "tony.worker.memory": "256m", "tony.am.memory": "256m",
            "tony.execution.envs": "TEST_NAMENODE_HTTP=" +
            site(cluster.conf_dir, "hdfs-site.xml", "dfs.namenode.http-address")}
    conf.update(props)
    xml = tony_xml(str(tmp_path / "tony.xml"), conf)
    return tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                    "--src_dir", str(src), "--conf_file", xml, *flags, timeout=300)


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
    assert not os.path.exists(tmp_path / "no-such-cache")  # no ticket written to the user's cache


def assert_nothing_staged(tony):
    jobs = os.path.join(tony.home, "jobs")
    assert not os.path.isdir(jobs) or not os.listdir(jobs), os.listdir(jobs)


def test_no_ticket_stops_before_staging_and_names_kinit(tmp_path, cluster):
    tony = secure_tony(tmp_path, cluster, ccache=str(tmp_path / "empty-cache"))
    r = submit(tony, tmp_path, cluster)
    assert r.returncode != 0
    assert "run kinit" in r.stderr, r.stderr
    assert_nothing_staged(tony)


def test_principal_and_keytab_flags_log_in_with_no_ticket_cache(tmp_path, cluster):
    put_input(cluster, tmp_path)
    tony = secure_tony(tmp_path, cluster, ccache=str(tmp_path / "no-such-cache"))
    r = submit(tony, tmp_path, cluster,
               flags=("--principal", cluster.user, "--keytab", cluster.user_keytab))
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert re.search(r"application application_\d+_\d+ FINISHED", out), out
    assert "tony.kerberos" not in r.stderr, r.stderr  # the keys are known: no warning
    # The keytab's tickets stayed in tony's memory: the user's cache (KRB5CCNAME) was not made.
    assert not os.path.exists(tmp_path / "no-such-cache")


def test_a_wrong_keytab_is_refused_naming_it_and_the_principal(tmp_path, cluster):
    other_keytab = str(tmp_path / "mallory.keytab")
    cluster.kdc.add_principal("mallory", other_keytab)
    tony = secure_tony(tmp_path, cluster, ccache=str(tmp_path / "no-such-cache"))
    r = submit(tony, tmp_path, cluster,
               flags=("--principal", cluster.user, "--keytab", other_keytab))
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"Kerberos login of {cluster.user} from keytab {other_keytab} failed" in r.stderr, \
        r.stderr
    assert f"check that the keytab holds current keys of {cluster.user}" in r.stderr, r.stderr
    assert_nothing_staged(tony)


def test_a_missing_or_unreadable_keytab_is_refused_before_staging(tmp_path, cluster):
    tony = secure_tony(tmp_path, cluster, ccache=str(tmp_path / "no-such-cache"))
    missing = str(tmp_path / "no-such.keytab")
    r = submit(tony, tmp_path, cluster, flags=("--principal", cluster.user, "--keytab", missing))
    assert r.returncode == 2, r.stdout + r.stderr
    assert (f"tony.kerberos.keytab = {missing} (from --keytab), the keytab of {cluster.user}: "
            "No such file or directory") in r.stderr, r.stderr
    # Tests run as root, whom file modes do not stop: a directory is what cannot be read here.
    unreadable = tmp_path / "a-directory"
    unreadable.mkdir()
    r = submit(tony, tmp_path, cluster, **{"tony.kerberos.principal": cluster.user,
                                           "tony.kerberos.keytab": str(unreadable)})
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"tony.kerberos.keytab = {unreadable} (from " in r.stderr, r.stderr
    assert f"the keytab of {cluster.user}: not a regular file" in r.stderr, r.stderr
    r = submit(tony, tmp_path, cluster, flags=("--principal", cluster.user))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "set both or neither" in r.stderr, r.stderr
    assert_nothing_staged(tony)


def test_an_expired_ticket_is_refused_naming_kinit(tmp_path, cluster):
    ccache = str(tmp_path / "short-lived")
    cluster.kdc.kinit(USER, cluster.user_keytab, ccache, lifetime="3s")
    # klist -s fails once the cache holds no valid ticket: wait for that, with a bound.
    deadline = time.monotonic() + 60
    while subprocess.run(["klist", "-s"], env=cluster.env(ccache)).returncode == 0:
        assert time.monotonic() < deadline, "the 3 s ticket did not expire within 60 s"
        time.sleep(0.2)
    tony = secure_tony(tmp_path, cluster, ccache=ccache)
    r = submit(tony, tmp_path, cluster)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "has expired" in r.stderr, r.stderr
    assert "run kinit" in r.stderr, r.stderr
    assert_nothing_staged(tony)


def rm_app_user(cluster, out):
    import json
    import urllib.request
    app_id = re.search(r"application (application_\d+_\d+) submitted", out).group(1)
    web = site(cluster.conf_dir, "yarn-site.xml", "yarn.resourcemanager.webapp.address")
    with urllib.request.urlopen(f"http://{web}/ws/v1/cluster/apps/{app_id}", timeout=30) as r:
        return json.load(r)["app"]["user"]


def staging_owner(cluster, user, app_id):
    """The owner of `user`'s staging dir of `app_id` on HDFS, asked over SPNEGO as alice acting
    for `user` (the dir is private to its owner)."""
    import json
    nn = site(cluster.conf_dir, "hdfs-site.xml", "dfs.namenode.http-address")
    r = subprocess.run(["curl", "-sf", "--negotiate", "-u", ":",
                        f"http://{nn}/webhdfs/v1/user/{user}/.tony/{app_id}"
                        f"?op=GETFILESTATUS&doas={user}"],
                       env=cluster.env(), capture_output=True, text=True)
    assert r.returncode == 0, (r.returncode, r.stderr)
    return json.loads(r.stdout)["FileStatus"]["owner"]


def test_a_proxy_user_job_runs_as_that_user(tmp_path, cluster):
    put_input(cluster, tmp_path)
    tony = secure_tony(tmp_path, cluster)
    # --debug keeps the staging dir, so that whose it is can be read after the job.
    r = submit(tony, tmp_path, cluster, flags=("--proxy_user", PROXY_USER, "--debug"))
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    # The RM's own record: the application is bob's, submitted by alice's Kerberos login.
    assert rm_app_user(cluster, out) == PROXY_USER
    # The staged job is bob's, under bob's home: every WebHDFS call acted for him (doas).
    app_id = re.search(r"application (application_\d+_\d+) submitted", out).group(1)
    assert staging_owner(cluster, PROXY_USER, app_id) == PROXY_USER


def test_a_proxy_user_the_cluster_does_not_allow_is_refused(tmp_path, cluster):
    tony = secure_tony(tmp_path, cluster)
    r = submit(tony, tmp_path, cluster, **{"tony.kerberos.proxy-user": "carol"})
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{cluster.user} may not act as proxy user carol" in r.stderr, r.stderr
    assert f"hadoop.proxyuser.{USER}.hosts and hadoop.proxyuser.{USER}.groups" in r.stderr, \
        r.stderr
    assert_nothing_staged(tony)


def fetch_tokens(cluster, path, *flags):
    """A credentials file with alice's RM and HDFS delegation tokens (renewer: the RM), written
    by Hadoop's client code from her keytab, as a workflow scheduler hands one to its jobs."""
    r = subprocess.run(["bash", START, "--fetch-tokens", cluster.conf_dir, cluster.user,
                        cluster.user_keytab, str(path), *flags], env=cluster.env(),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r.stdout


def token_file_tony(tmp_path, cluster, token_file):
    """tony with no ticket cache and only HADOOP_TOKEN_FILE_LOCATION."""
    tony = secure_tony(tmp_path, cluster, ccache=str(tmp_path / "no-such-cache"))
    tony.env["HADOOP_TOKEN_FILE_LOCATION"] = str(token_file)
    return tony


def test_a_token_file_alone_submits_with_no_ticket(tmp_path, cluster):
    put_input(cluster, tmp_path)
    tokens = tmp_path / "container_tokens"
    fetched = fetch_tokens(cluster, tokens)
    assert "token RM_DELEGATION_TOKEN" in fetched and "token HDFS_DELEGATION_TOKEN" in fetched, \
        fetched
    tony = token_file_tony(tmp_path, cluster, tokens)
    r = submit(tony, tmp_path, cluster)
    out = r.stdout + r.stderr
    # The tasks read HDFS with the file's HDFS token (SCRIPT fails the job otherwise).
    assert r.returncode == 0, out
    assert re.search(r"application application_\d+_\d+ FINISHED", out), out
    assert rm_app_user(cluster, out) == USER
    assert "Kerberos" not in r.stderr, r.stderr
    # The tokens are the scheduler's: the RM must not cancel them when the job ends, or its
    # next job with the same file fails. Past several removal intervals, a second job.
    time.sleep(4 * TOKEN_REMOVAL_MS / 1000)
    r = submit(tony, tmp_path, cluster)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_ticket_serves_beside_a_token_file_without_an_rm_token(tmp_path, cluster):
    put_input(cluster, tmp_path)
    tokens = tmp_path / "hdfs_only_tokens"
    fetch_tokens(cluster, tokens, "--no-rm")
    tony = secure_tony(tmp_path, cluster)  # alice's ticket cache
    tony.env["HADOOP_TOKEN_FILE_LOCATION"] = str(tokens)
    r = submit(tony, tmp_path, cluster)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "holds no RM_DELEGATION_TOKEN for service" in r.stderr, r.stderr
    assert f"submitting with the Kerberos ticket of {cluster.user} instead" in r.stderr, r.stderr


def test_a_token_file_without_an_rm_token_and_no_ticket_is_refused(tmp_path, cluster):
    tokens = tmp_path / "hdfs_only_tokens"
    fetch_tokens(cluster, tokens, "--no-rm", "--protobuf")
    tony = token_file_tony(tmp_path, cluster, tokens)
    r = submit(tony, tmp_path, cluster)
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(r"\$HADOOP_TOKEN_FILE_LOCATION \(" + re.escape(str(tokens)) +
                     r"\) holds no RM_DELEGATION_TOKEN for service [\d.]+:\d+ \(this cluster's "
                     r"ResourceManager; the file has HDFS_DELEGATION_TOKEN for [\d.]+:\d+\)",
                     r.stderr), r.stderr
    assert "run kinit" in r.stderr, r.stderr
    assert_nothing_staged(tony)


def test_a_token_file_that_is_not_one_is_refused_naming_the_variable_and_path(tmp_path,
                                                                              cluster):
    bad = tmp_path / "not_tokens"
    bad.write_text("not a credentials file")
    tony = token_file_tony(tmp_path, cluster, bad)
    r = submit(tony, tmp_path, cluster)
    assert r.returncode == 2, r.stdout + r.stderr
    assert (f"$HADOOP_TOKEN_FILE_LOCATION ({bad}), the delegation tokens to submit with: not a "
            "Hadoop credentials file") in r.stderr, r.stderr
    assert_nothing_staged(tony)


def test_a_token_file_whose_rm_token_was_cancelled_is_refused_naming_it(tmp_path, cluster):
    tokens = tmp_path / "cancelled_tokens"
    assert "cancelled RM_DELEGATION_TOKEN" in fetch_tokens(cluster, tokens, "--cancel-rm")
    tony = token_file_tony(tmp_path, cluster, tokens)
    r = submit(tony, tmp_path, cluster)
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(r"\$HADOOP_TOKEN_FILE_LOCATION \(" + re.escape(str(tokens)) +
                     r"\): the ResourceManager refused its RM_DELEGATION_TOKEN for [\d.]+:\d+ ",
                     r.stderr), r.stderr
    assert "it expired, was cancelled, or is another ResourceManager's" in r.stderr, r.stderr
    assert_nothing_staged(tony)


def hdfs_listing(cluster, path):
    """{name: owner} of an HDFS directory, asked over SPNEGO as alice."""
    import json
    nn = site(cluster.conf_dir, "hdfs-site.xml", "dfs.namenode.http-address")
    r = subprocess.run(["curl", "-sf", "--negotiate", "-u", ":",
                        f"http://{nn}/webhdfs/v1{path}?op=LISTSTATUS"],
                       env=cluster.env(), capture_output=True, text=True)
    assert r.returncode == 0, (path, r.returncode, r.stderr)
    return {s["pathSuffix"]: s["owner"] for s in json.loads(r.stdout)["FileStatuses"]["FileStatus"]}


def test_the_am_writes_the_history_on_kerberized_hdfs_with_the_jobs_token(tmp_path, cluster):
    # The AM has no ticket: it writes with the job's HDFS delegation token, as alice.
    put_input(cluster, tmp_path)
    tony = secure_tony(tmp_path, cluster)
    root = f"/user/alice/tony-history-{os.getpid()}"
    r = submit(tony, tmp_path, cluster, **{"tony.history.location": root})
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "history is incomplete" not in out, out
    app_id = re.search(r"application (application_\d+_\d+) FINISHED", out).group(1)
    assert hdfs_listing(cluster, f"{root}/intermediate") == {}
    dated = f"{root}/finished"
    for _ in ("yyyy", "MM", "dd"):
        below = hdfs_listing(cluster, dated)
        assert len(below) == 1, (dated, below)
        dated += "/" + next(iter(below))
    files = hdfs_listing(cluster, f"{dated}/{app_id}")
    assert "tony-final.xml" in files, files
    final = [f for f in files if re.fullmatch(re.escape(app_id) +
                                              r"-\d+-\d+-[^-]+-SUCCEEDED\.jhist", f)]
    assert len(final) == 1, files
    assert set(files.values()) == {"alice"}, files
