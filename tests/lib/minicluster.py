"""Starts and stops the test minicluster (tests/minicluster: MiniDFS + MiniYARN in one JVM)."""
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time

START = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "minicluster", "start.sh")


class MiniclusterError(Exception):
    pass


@contextlib.contextmanager
def running_minicluster(nodemanagers=2, conf=None, env=None, flags=()):
    """Yields the directory with the clusters' site files; `conf` maps extra configuration keys to
    values (an empty value unsets a key); `env` is the JVM's environment (default: ours; a secure
    cluster's carries KRB5_CONFIG); `flags` go to start.sh (e.g. "--second-dfs"). Stops the cluster (stdin closed, then the process group
    killed) on exit."""
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
        yield conf_dir
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
