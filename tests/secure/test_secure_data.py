"""HDFS data for tasks on the Kerberized minicluster (tests/lib/secure_cluster.py, authentication,
with a second MiniDFSCluster as "another cluster" and HDFS tokens that expire 6 s after their
issue or last renewal):

- a task reads its training data with fsspec's WebHDFS client (from PyPI, in the venv of
  scripts/setup-frameworks.sh) given only TONY_NAMENODE_HTTP_ADDRESS and
  TONY_HDFS_DELEGATION_TOKEN, with no usable Kerberos ticket in its container;
- tony.other.namenodes (hdfs:// over IPC, webhdfs:// over SPNEGO) and an hdfs://
  tony.history.location get tokens that reach the tasks (TONY_HDFS_DELEGATION_TOKENS), and a
  NameNode that cannot be asked is a warning naming it;
- a JVM reader that uses Hadoop's FileSystem API runs on the CLASSPATH the executor takes from
  the node's `hadoop classpath --glob`;
- a job that reads for three renew intervals keeps reading, because the RM renews the tokens,
  while a token nobody renews is refused after one interval.
"""
import os
import re
import subprocess

import pytest

from minicluster import site_property as site
from secure_cluster import running_secure_minicluster
from tonytest import Tony, tony_xml, write

WEBHDFS_PYTHON = os.path.join(os.environ.get("TONY_FRAMEWORKS_ROOT", "/opt"), "tony-webhdfs",
                              "bin", "python")
RENEW_INTERVAL_MS = 6000
MINICLUSTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "minicluster")

# Reads with fsspec's WebHDFS and the variables tony gives the task; proves first that the
# container holds no Kerberos ticket that could do the same.
READER = r"""
import os, subprocess, sys, time
from fsspec.implementations.webhdfs import WebHDFS

klist = subprocess.run(["klist", "-s"], capture_output=True)
print("KRB5CCNAME=%s klist-s=%d" % (os.environ.get("KRB5CCNAME"), klist.returncode), flush=True)
if klist.returncode == 0:
    sys.exit("a Kerberos ticket is usable in the container")

def fs_for(address, token):
    host, port = address.split(",")[0].rsplit(":", 1)
    return WebHDFS(host, int(port), token=token)

def token_of(service):
    pairs = dict(p.split("=", 1) for p in os.environ["TONY_HDFS_DELEGATION_TOKENS"].split(","))
    return pairs[service]

default_fs = fs_for(os.environ["TONY_NAMENODE_HTTP_ADDRESS"],
                    os.environ["TONY_HDFS_DELEGATION_TOKEN"])
print("default fs:", default_fs.cat_file("/user/alice/data.txt").decode().strip(), flush=True)
if os.environ.get("OTHER_NN_HTTP"):
    other = fs_for(os.environ["OTHER_NN_HTTP"], token_of(os.environ["OTHER_NN_SERVICE"]))
    print("other fs:", other.cat_file("/data/other.txt").decode().strip(), flush=True)
seconds = float(os.environ.get("READ_FOR_SECONDS", "0"))
start = time.monotonic()
reads = 0
while time.monotonic() - start < seconds:
    default_fs.cat_file("/user/alice/data.txt")
    reads += 1
    time.sleep(0.5)
if seconds:
    print("kept reading: %d reads over %.1f s" % (reads, time.monotonic() - start), flush=True)
"""

# A JVM reader on the task's CLASSPATH: Hadoop's FileSystem API with the container's tokens.
JAVA_READER = r"""
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IOUtils;

public class HdfsCat {
  public static void main(String[] args) throws Exception {
    Path path = new Path(args[0]);
    try (FSDataInputStream in = path.getFileSystem(new Configuration()).open(path)) {
      System.out.print("jvm read: ");
      IOUtils.copyBytes(in, System.out, 4096, false);
    }
  }
}
"""


@pytest.fixture(scope="module")
def cluster():
    if not os.access(WEBHDFS_PYTHON, os.X_OK):
        pytest.fail(f"{WEBHDFS_PYTHON} is missing: run scripts/setup-frameworks.sh")
    conf = {"dfs.namenode.delegation.token.renew-interval": str(RENEW_INTERVAL_MS)}
    with running_secure_minicluster("authentication", conf=conf, flags=["--second-dfs"]) as sc:
        yield sc


def nn_http(cluster):
    return site(cluster.conf_dir, "hdfs-site.xml", "dfs.namenode.http-address")


def curl(cluster, *args):
    r = subprocess.run(["curl", "-sf", "--negotiate", "-u", ":", *args], env=cluster.env(),
                       capture_output=True, text=True)
    assert r.returncode == 0, (args, r.returncode, r.stderr)
    return r.stdout


def put(cluster, http, path, text, tmp_path):
    local = tmp_path / os.path.basename(path)
    local.write_text(text)
    curl(cluster, "-X", "PUT", f"http://{http}/webhdfs/v1{os.path.dirname(path)}?op=MKDIRS")
    curl(cluster, "-L", "-X", "PUT", "-T", str(local),
         f"http://{http}/webhdfs/v1{path}?op=CREATE&overwrite=true")


@pytest.fixture(scope="module")
def data(cluster, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("data")
    put(cluster, nn_http(cluster), "/user/alice/data.txt", "training data on the default fs\n", tmp)
    put(cluster, cluster.second_dfs()["http"], "/data/other.txt", "data on another cluster\n", tmp)
    return cluster


def submit(tmp_path, cluster, envs=(), executes="reader.py", python=WEBHDFS_PYTHON, files=None,
           **props):
    tony = Tony(tmp_path / "home")
    tony.use(cluster.env())
    src = tmp_path / "src"
    write(str(src / "reader.py"), READER)
    for name, text in (files or {}).items():
        write(str(src / name), text)
    conf = {"tony.application.framework": "pytorch", "tony.worker.instances": "1",
            "tony.worker.memory": "256m", "tony.am.memory": "256m"}
    if envs:
        conf["tony.execution.envs"] = ",".join(envs)
    conf.update(props)
    xml = tony_xml(str(tmp_path / "tony.xml"), conf)
    args = ["--python_binary_path", python] if python else []
    r = tony.run("submit", "--executes", executes, *args, "--src_dir", str(src), "--conf_file",
                 xml, timeout=300)
    return tony, r


def container_files(cluster, r, name):
    """The contents of every `name` in the NodeManagers' log dirs of the application `r`
    submitted (the minicluster keeps them under its data dir)."""
    app = re.search(r"application (application_\d+_\d+)", r.stdout)
    assert app, r.stdout + r.stderr
    out = ""
    for root, _, files in os.walk(os.path.join(cluster.conf_dir, "data")):
        if app.group(1) in root and name in files and "logDir" in root:
            out += open(os.path.join(root, name), errors="replace").read()
    return out


def task_output(cluster, r):
    return "".join(container_files(cluster, r, f) for f in ("stdout", "stderr", "executor.log"))


def other_service(cluster):
    port = cluster.second_dfs()["rpc"].rsplit(":", 1)[1]
    return f"127.0.0.1:{port}"


def test_a_task_reads_hdfs_with_fsspec_and_no_ticket(tmp_path, data):
    tony, r = submit(tmp_path, data)
    out = r.stdout + r.stderr + task_output(data, r)
    assert r.returncode == 0, out
    assert "default fs: training data on the default fs" in out, out
    assert re.search(r"klist-s=[1-9]", out), out
    # The token reaches the user process only, not the container's launch script.
    launch = container_files(data, r, "launch_container.sh")
    assert "TONY_HDFS_TOKEN_SERVICE" in launch and "TONY_HDFS_DELEGATION_TOKEN" not in launch


def test_tokens_for_other_namenodes_reach_the_tasks(tmp_path, data):
    second = data.second_dfs()
    tony, r = submit(tmp_path, data,
                     envs=[f"OTHER_NN_HTTP={second['http']}",
                           f"OTHER_NN_SERVICE={other_service(data)}"],
                     **{"tony.other.namenodes": f"hdfs://{second['rpc']}"})
    out = r.stdout + r.stderr + task_output(data, r)
    assert r.returncode == 0, out
    assert "other fs: data on another cluster" in out, out
    assert "warning: no delegation token" not in r.stderr, r.stderr


def test_a_webhdfs_uri_gets_a_token_over_spnego(tmp_path, data):
    http = data.second_dfs()["http"]
    tony, r = submit(tmp_path, data,
                     envs=[f"OTHER_NN_HTTP={http}",
                           f"OTHER_NN_SERVICE=127.0.0.1:{http.rsplit(':', 1)[1]}"],
                     **{"tony.other.namenodes": f"webhdfs://{http}"})
    out = r.stdout + r.stderr + task_output(data, r)
    assert r.returncode == 0, out
    assert "other fs: data on another cluster" in out, out


def test_history_location_gets_a_token_and_a_bad_namenode_only_warns(tmp_path, data):
    second = data.second_dfs()
    # Nothing listens on port 1: that NameNode cannot be asked, which must not stop the job.
    tony, r = submit(tmp_path, data,
                     envs=[f"OTHER_NN_HTTP={second['http']}",
                           f"OTHER_NN_SERVICE={other_service(data)}"],
                     **{"tony.other.namenodes": "hdfs://localhost:1",
                        "tony.history.location": f"hdfs://{second['rpc']}/tony-history"})
    out = r.stdout + r.stderr + task_output(data, r)
    assert r.returncode == 0, out
    assert "other fs: data on another cluster" in out, out
    assert re.search(r"warning: no delegation token for hdfs://localhost:1 "
                     r"\(tony.other.namenodes\)", r.stderr), r.stderr


def fake_hadoop_home(tmp_path):
    """A node's Hadoop installation as far as tony uses it: bin/hadoop answers `classpath --glob`
    with the conf dir and the minicluster's own Hadoop 3.5.0 jars (a real bin/hadoop prints the
    same shape: conf dir, then jars); lib/native exists, as in a distribution."""
    jars = open(os.path.join(MINICLUSTER, "target", "classpath.txt")).read().strip()
    home = tmp_path / "hadoop-home"
    (home / "lib" / "native").mkdir(parents=True)
    write(str(home / "bin" / "hadoop"),
          "#!/bin/sh\n"
          "[ \"$1 $2\" = \"classpath --glob\" ] || { echo \"not this stand-in's job: $*\" >&2; "
          "exit 2; }\n"
          f"echo \"$HADOOP_CONF_DIR:{jars}\"\n", mode=0o755)
    return str(home)


def test_a_jvm_reader_uses_the_hadoop_classpath(tmp_path, data):
    classes = tmp_path / "classes"
    classes.mkdir()
    write(str(classes / "HdfsCat.java"), JAVA_READER)
    jars = open(os.path.join(MINICLUSTER, "target", "classpath.txt")).read().strip()
    subprocess.run(["javac", "-cp", jars, "-d", str(classes), str(classes / "HdfsCat.java")],
                   check=True)
    home = fake_hadoop_home(tmp_path)
    fs = site(data.conf_dir, "core-site.xml", "fs.defaultFS")
    script = ("echo HADOOP_HDFS_HOME=$HADOOP_HDFS_HOME\necho LD_LIBRARY_PATH=$LD_LIBRARY_PATH\n"
              "echo CLASSPATH=$CLASSPATH\n"
              f"exec java -cp \"$CLASSPATH:{classes}\" HdfsCat {fs}/user/alice/data.txt\n")
    tony, r = submit(tmp_path, data, executes="jvm.sh", python="/bin/bash",
                     files={"jvm.sh": script},
                     # A node's /etc/krb5.conf; the JVM has no ticket, only the tokens.
                     envs=[f"JAVA_TOOL_OPTIONS=-Djava.security.krb5.conf={data.kdc.krb5_conf}"],
                     # What a node's NodeManager hands its containers.
                     **{"tony.containers.envs": f"HADOOP_HOME={home},HADOOP_CONF_DIR={data.conf_dir}"})
    out = r.stdout + r.stderr + task_output(data, r)
    assert r.returncode == 0, out
    assert "jvm read: training data on the default fs" in out, out
    assert f"HADOOP_HDFS_HOME={home}" in out, out
    assert f"{home}/lib/native" in out, out
    assert re.search(r"CLASSPATH=\S*hadoop-client-api-3\.5\.0\.jar", out), out


def test_a_job_keeps_reading_past_the_token_renew_interval(tmp_path, data):
    nn = nn_http(data)
    # A token nobody renews (renewer alice, not the RM) as the control: it must expire.
    control = re.search(r'"urlString":"([^"]+)"', curl(
        data, f"http://{nn}/webhdfs/v1/?op=GETDELEGATIONTOKEN&renewer=alice")).group(1)
    read_for = 3 * RENEW_INTERVAL_MS / 1000
    tony, r = submit(tmp_path, data,
                     envs=[f"READ_FOR_SECONDS={read_for}"])
    out = r.stdout + r.stderr + task_output(data, r)
    assert r.returncode == 0, out
    m = re.search(r"kept reading: (\d+) reads over ([\d.]+) s", out)
    assert m and float(m.group(2)) >= read_for, out
    # By now the control is more than three intervals old, and nobody renewed it.
    refused = subprocess.run(
        ["curl", "-s", f"http://{nn}/webhdfs/v1/user/alice/data.txt?op=GETFILESTATUS"
         f"&delegation={control}"], capture_output=True, text=True).stdout
    assert re.search(r"InvalidToken: Token .*has expired", refused), refused
