"""Starts and stops the test minicluster (tests/minicluster: MiniDFS + MiniYARN in one JVM)."""
import contextlib
import getpass
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

START = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "minicluster", "start.sh")


class MiniclusterError(Exception):
    pass


class MiniclusterControl:
    """Commands to a running minicluster through its stdin (tests/minicluster Main.java): each
    answers with marker lines on its stdout, read here by one thread."""

    def __init__(self, proc):
        self.proc = proc
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            sys.stderr.write("minicluster: " + line)
            self.lines.put(line.strip())

    def command(self, line, end_marker, timeout=120):
        """Sends `line`; returns the MINICLUSTER lines it printed, up to the one with
        `end_marker`."""
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        got = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise MiniclusterError(f"no '{end_marker}' from the minicluster after {line!r}")
            try:
                out = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if out.startswith("MINICLUSTER"):
                got.append(out)
            if end_marker in out:
                return got

    def nodes(self):
        """{index: (node id, web port)} of the NodeManagers."""
        found = {}
        for line in self.command("nodes", "MINICLUSTER NODES END"):
            parts = line.split()
            if len(parts) == 5 and parts[1] == "NM":
                found[int(parts[2])] = (parts[3], int(parts[4]))
        return found

    def lose_nodemanager(self, index):
        """The RM takes NodeManager `index` for lost (its containers' AMs get status -100) and the
        NodeManager stops (its containers die with it); returns its node id."""
        return self.command(f"lose-nm {index}", "MINICLUSTER NM LOST")[-1].split()[-1]


@contextlib.contextmanager
def running_minicluster(nodemanagers=2, conf=None, env=None, flags=(), control=False):
    """Yields the directory with the clusters' site files; `conf` maps extra configuration keys to
    values (an empty value unsets a key); `env` is the JVM's environment (default: ours; a secure
    cluster's carries KRB5_CONFIG); `flags` go to start.sh (e.g. "--second-dfs"). Stops the cluster (stdin closed, then the process group
    killed) on exit. With `control`, yields (conf dir, MiniclusterControl) instead."""
    conf_dir = tempfile.mkdtemp(prefix="tony-minicluster-")
    args = ["bash", START, conf_dir, str(nodemanagers), *flags]
    args += [f"{k}={v}" for k, v in (conf or {}).items()]
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            start_new_session=True, env=env)
    deadline = time.monotonic() + 600
    ready = False
    try:
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            sys.stderr.write("minicluster: " + line)
            if "MINICLUSTER READY" in line:
                ready = True
                break
        if not ready:
            raise MiniclusterError("the minicluster did not start (see stderr)")
        yield (conf_dir, MiniclusterControl(proc)) if control else conf_dir
    finally:
        try:
            proc.stdin.close()
            proc.wait(timeout=60)
        except Exception:
            pass
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()


def minicluster_fixture(scope="module", **kwargs):
    """A pytest fixture running one minicluster (running_minicluster's arguments) for the tests
    of its scope and yielding what running_minicluster yields; a cluster that does not start
    fails those tests with why. E.g. `acl_cluster = minicluster_fixture(conf=ACLS_ON)`."""
    import pytest

    @pytest.fixture(scope=scope)
    def fixture():
        try:
            with running_minicluster(**kwargs) as cluster:
                yield cluster
        except MiniclusterError as e:
            pytest.fail(str(e))

    return fixture


def site_property(conf_dir, file, key):
    """The value of `key` in the cluster's `file` (core-site.xml, yarn-site.xml, ...), or None."""
    for prop in ET.parse(os.path.join(conf_dir, file)).getroot().iter("property"):
        if prop.findtext("name") == key:
            return prop.findtext("value")
    return None


def hdfs_cat(conf_dir, path):
    """The bytes of HDFS `path` (WebHDFS OPEN, which the NameNode redirects to a DataNode), as the
    open cluster's user; None when it does not exist."""
    http = site_property(conf_dir, "hdfs-site.xml", "dfs.namenode.http-address")
    user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
    url = f"http://{http}/webhdfs/v1{path}?op=OPEN&user.name={user}"
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.read()
    except urllib.error.HTTPError as e:
        assert e.code == 404, e
        return None


def hdfs_put(conf_dir, path, data):
    """Writes `data` to HDFS `path` with WebHDFS CREATE (the NameNode redirects the PUT to a
    DataNode), as the open cluster's user."""
    http = site_property(conf_dir, "hdfs-site.xml", "dfs.namenode.http-address")
    user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
    url = f"http://{http}/webhdfs/v1{path}?op=CREATE&overwrite=true&user.name={user}"
    try:
        urllib.request.urlopen(urllib.request.Request(url, method="PUT"), timeout=30)
        raise AssertionError("WebHDFS CREATE did not redirect")
    except urllib.error.HTTPError as e:
        assert e.code == 307, e
        location = e.headers["Location"]
    with urllib.request.urlopen(urllib.request.Request(location, data=data, method="PUT"),
                                timeout=30) as r:
        assert r.status == 201, r.status


def edit_site(path, changes):
    """Sets (or, for None, removes) properties of a Hadoop site file."""
    tree = ET.parse(path)
    root = tree.getroot()
    for prop in list(root.iter("property")):
        if prop.findtext("name") in changes:
            root.remove(prop)
    for key, value in changes.items():
        if value is None:
            continue
        prop = ET.SubElement(root, "property")
        ET.SubElement(prop, "name").text = key
        ET.SubElement(prop, "value").text = value
    tree.write(path)
