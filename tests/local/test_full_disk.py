"""A disk that fills up while a job runs (README "Failures"): the job's own record (events.jsonl,
status.json in the job dir) can no longer be written. That is never silent: the coordinator says
so in its log and in the job's final message, naming the file and the reason, the training's
outcome stays what it was, the job still ends, and nothing of it is left running. TONY_HOME is
a small tmpfs of its own, which the task fills."""
import os
import subprocess

import pytest

from tonytest import SYSTEM_PYTHON, Tony, assert_nothing_left, tony_xml, write

# Fills the disk the job dir is on, then exits 0: its SUCCEEDED end is an event that cannot be
# written.
# (Nothing printed: its stdout is a file on that disk too.)
FILL = """
import os
try:
    with open(os.environ["FILL"], "wb") as f:
        while True:
            f.write(b"x" * 65536)
            f.flush()
except OSError:
    pass
os._exit(0)
"""


@pytest.fixture
def small_home(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs as TONY_HOME needs root (the tests run as root in CI)")
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs",
                              str(home)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (no CAP_SYS_ADMIN?): {mounted.stderr.strip()}")
    try:
        yield home
    finally:
        subprocess.run(["umount", "-l", str(home)], check=False)


def test_a_full_disk_is_reported_and_the_job_still_ends(small_home, tmp_path):
    tony = Tony(small_home)
    src = tmp_path / "src"
    write(str(src / "fill.py"), FILL)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "generic", "tony.worker.instances": "1",
        "tony.worker.memory": "256m"})
    r = tony.run("submit", "--executes", "fill.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf,
                 "--shell_env", f"FILL={small_home}/filler", timeout=120)
    out = r.stdout + r.stderr
    # The training itself succeeded; the message says the record is incomplete, and why.
    assert r.returncode == 0, out
    assert "SUCCEEDED" in out, out
    assert "record" in out and "incomplete" in out, out
    assert "events.jsonl" in out or "status.json" in out, out
    assert "No space left on device" in out, out
    assert_nothing_left(str(small_home))
