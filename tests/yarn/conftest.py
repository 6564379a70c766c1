"""The yarn tier's fixture: one MiniDFS + MiniYARN cluster (tests/minicluster, 2 NodeManagers)
for the whole module, stopped (stdin closed, then the process group killed) at the end."""
import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
START = os.path.join(HERE, "..", "minicluster", "start.sh")


@pytest.fixture(scope="session")
def minicluster():
    conf_dir = tempfile.mkdtemp(prefix="tony-minicluster-")
    proc = subprocess.Popen(["bash", START, conf_dir, "2"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
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
            pytest.fail("the minicluster did not start (see stderr)")
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
