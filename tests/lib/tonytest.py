"""Shared helpers for tony's integration tests: run the real `tony` binary, find its jobs, and
check from /proc that nothing a job started is still running.

Tests import this module through tests/conftest.py; TONY_BIN names the binary under test (CTest
sets it)."""
import json
import os
import re
import signal
import subprocess
import sys
import time

TONY_BIN = os.environ.get("TONY_BIN", os.path.join(os.path.dirname(__file__), "../../build/cli/tony"))
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's python3-torch lives here


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


def tony_xml(path, props):
    """Writes a Hadoop-style tony.xml with the given {key: value} properties."""
    body = "".join(
        f"  <property><name>{k}</name><value>{v}</value></property>\n" for k, v in props.items())
    return write(path, f"<configuration>\n{body}</configuration>\n")


class Tony:
    """Runs tony with its own TONY_HOME so each test sees only its own jobs."""

    def __init__(self, home):
        self.home = str(home)
        self.env = dict(os.environ, TONY_HOME=self.home, TONY_CONF_DIR=os.path.join(self.home, "conf"))
        self.env.pop("HADOOP_CONF_DIR", None)
        self.env.pop("YARN_CONF_DIR", None)

    def use(self, env):
        """Takes a cluster's environment (HADOOP_CONF_DIR, KRB5_*: a copy of os.environ plus its
        own) while keeping this instance's TONY_HOME and TONY_CONF_DIR: scripts/test.sh exports a
        TONY_HOME, and a test that let it through would look for its jobs in the wrong home."""
        home = {k: self.env[k] for k in ("TONY_HOME", "TONY_CONF_DIR")}
        self.env.update(env)
        self.env.update(home)
        return self

    def run(self, *args, timeout=120, cwd=None):
        return subprocess.run([TONY_BIN, *args], env=self.env, cwd=cwd, timeout=timeout,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def start(self, *args, cwd=None):
        """Starts `tony ...` in the background (its own process group, like a terminal job)."""
        return subprocess.Popen([TONY_BIN, *args], env=self.env, cwd=cwd,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)

    def jobs(self):
        root = os.path.join(self.home, "jobs")
        return sorted(os.listdir(root)) if os.path.isdir(root) else []

    def job_dir(self, job_id=None):
        job_id = job_id or self.jobs()[-1]
        return os.path.join(self.home, "jobs", job_id)

    def status(self, job_id=None):
        with open(os.path.join(self.job_dir(job_id), "status.json")) as f:
            return json.load(f)

    def running_job(self, tasks=None):
        """The id of a job whose tasks all run (exactly `tasks` of them when given), else None:
        a predicate for eventually(). A status.json being written is skipped for now."""
        for job in self.jobs():
            try:
                states = [t["state"] for t in self.status(job)["tasks"]]
            except (OSError, ValueError, KeyError):
                continue
            if states and (tasks is None or len(states) == tasks) and all(
                    s == "RUNNING" for s in states):
                return job
        return None

    def task(self, role, index, job_id=None):
        for t in self.status(job_id)["tasks"]:
            if t["role"] == role and t["index"] == index:
                return t
        raise KeyError(f"{role}:{index}")


def yarn_logs(root, names=("am.log", "executor.log", "stdout", "stderr"), tail=4000):
    """The end of every AM and task log the NodeManagers under `root` (a minicluster's directory)
    kept, each headed by its path: what a failed YARN test shows so that its cause is readable."""
    out = []
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if f in names and "container_" in dirpath:
                path = os.path.join(dirpath, f)
                try:
                    text = open(path, errors="replace").read()
                except OSError as e:
                    text = f"(unreadable: {e})"
                out.append(f"--- {path}\n{text[-tail:]}")
    return "\n".join(out) or f"(no container logs under {root})"


def stop_and_read(proc, timeout=10):
    """Kills a `Tony.start` process group and returns what it printed."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    out, err = proc.communicate(timeout=timeout)
    return f"--- tony stdout\n{out}\n--- tony stderr\n{err}"


def job_id_from(output):
    m = re.search(r"tony: job (\S+) on the", output)
    return m.group(1) if m else None


def eventually(predicate, timeout=30.0, interval=0.05, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def gone(pid):
    """True once `pid` has exited (no process, or a zombie not yet reaped); no exists()-then-open()
    race: the process may end between any two looks."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def _start_ticks(pid):
    """When `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[19])


def processes_mentioning(text):
    """Live (non-zombie) processes whose command line or environment mentions `text`.

    Every process a tony job starts (coordinator, executors, user processes and their children)
    inherits TONY_HOME or a job-dir path in its environment, so this finds leftovers without
    trusting tony's own bookkeeping. A process whose environment cannot be read (tony's own
    processes are not dumpable; without CAP_SYS_PTRACE their environ is refused) may be the job's
    and counts as mentioning `text`, unless it is another user's (a local job runs as this one) or
    started before this test run (it cannot be the job's): never a silent "nothing left"."""
    found = []
    me, my_start = os.getuid(), _start_ticks(os.getpid())
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if fields[0] == "Z":
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    env = f.read().decode(errors="replace")
            except PermissionError:
                env = None
                mine = os.stat(f"/proc/{pid}").st_uid == me and int(fields[19]) >= my_start
        except (OSError, IndexError, ValueError):
            continue  # it ended meanwhile
        if text in cmd or (env is not None and text in env):
            found.append((int(pid), cmd))
        elif env is None and mine:
            found.append((int(pid), f"{cmd} (environ unreadable: it may be the job's)"))
    return found


def assert_nothing_left(text, timeout=10.0):
    """Waits (bounded) until no process mentions `text`; fails listing the leftovers."""
    deadline = time.monotonic() + timeout
    left = processes_mentioning(text)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = processes_mentioning(text)
    assert not left, f"processes left behind: {left}"
