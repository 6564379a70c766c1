"""Helpers shared by the benchmarks in bench/: where the tony binary is, a private TONY_HOME per
run, job-dir readers, a /proc sampler of peak memory, and table printing.

Benchmarks are not tests: they print figures and assert nothing beyond "the job succeeded"."""
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DEFAULT_TONY = os.path.join(REPO, "build-bench", "cli", "tony")
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's python3-torch is installed for this interpreter


def tony_binary(path):
    path = os.path.abspath(path or os.environ.get("TONY_BIN", DEFAULT_TONY))
    if not os.access(path, os.X_OK):
        raise SystemExit(f"no tony binary at {path}; build it (see bench/README.md) or pass --tony")
    return path


def write_tony_xml(path, props):
    body = "".join(
        f"  <property><name>{k}</name><value>{v}</value></property>\n" for k, v in props.items())
    with open(path, "w") as f:
        f.write(f"<configuration>\n{body}</configuration>\n")
    return path


class TonyHome:
    """A throw-away TONY_HOME (and an empty TONY_CONF_DIR, so no site file leaks in)."""

    def __init__(self, prefix="tony-bench-"):
        self.path = tempfile.mkdtemp(prefix=prefix)
        os.makedirs(os.path.join(self.path, "conf"))
        self.env = dict(os.environ, TONY_HOME=self.path,
                        TONY_CONF_DIR=os.path.join(self.path, "conf"))
        for k in ("HADOOP_CONF_DIR", "YARN_CONF_DIR"):
            self.env.pop(k, None)

    def job_dir(self):
        root = os.path.join(self.path, "jobs")
        jobs = sorted(os.listdir(root)) if os.path.isdir(root) else []
        if len(jobs) != 1:
            raise RuntimeError(f"expected one job under {root}, found {jobs}")
        return os.path.join(root, jobs[0])

    def cleanup(self):
        shutil.rmtree(self.path, ignore_errors=True)


def read_events(job_dir):
    with open(os.path.join(job_dir, "events.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def read_status(job_dir):
    with open(os.path.join(job_dir, "status.json")) as f:
        return json.load(f)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _children_map():
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(d))
    return children


def _cmdline(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]


class PeakMemorySampler:
    """Samples, every `interval` seconds, the descendants of `root_pid` (and the root itself) and
    keeps per process the last VmHWM seen (the kernel's own peak RSS, monotonic, so the last
    sample before exit is the peak up to then) and the largest RssAnon seen (private memory, the
    part that is really per process; shared library text is counted in every VmHWM).

    `classify(argv)` names a process's kind (e.g. "coordinator") or returns None to skip it."""

    def __init__(self, root_pid, classify, interval=0.05):
        self.root_pid = root_pid
        self.classify = classify
        self.interval = interval
        self.peaks = {}  # pid -> {"kind", "hwm_kb", "anon_kb"}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def sample(self):
        children = _children_map()
        todo, seen = [(self.root_pid, None)], set()
        while todo:
            pid, parent_kind = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            try:
                argv = _cmdline(pid)
            except OSError:
                continue
            if not argv:
                continue  # a zombie: keep what was sampled while it lived
            kind = self.classify(argv)
            todo.extend((c, kind) for c in children.get(pid, []))
            if kind is None:
                continue
            if kind == parent_kind:
                # A child between fork and exec still shows its parent's command line (and shares
                # its pages copy-on-write): not a process of that kind.
                self.peaks.pop(pid, None)
                continue
            if self.peaks.get(pid, {}).get("kind", kind) != kind:
                del self.peaks[pid]  # the pid exec'd into something else: a fresh VmHWM
            try:
                hwm = _status_kb(pid, "VmHWM")
                anon = _status_kb(pid, "RssAnon")
            except OSError:
                continue  # gone between listing and reading
            if hwm == 0:
                continue  # a zombie: its memory is already gone
            p = self.peaks.setdefault(pid, {"kind": kind, "hwm_kb": 0, "anon_kb": 0})
            p["hwm_kb"] = max(p["hwm_kb"], hwm)
            p["anon_kb"] = max(p["anon_kb"], anon)

    def by_kind(self, kind):
        return [p for p in self.peaks.values() if p["kind"] == kind]


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def print_table(headers, rows):
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for n, r in enumerate(cells):
        print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))))
        if n == 0:
            print("  ".join("-" * w for w in widths))


def machine_line():
    try:
        with open("/etc/debian_version") as f:
            debian = "Debian " + f.read().strip()
    except OSError:
        debian = platform.platform()
    try:
        load = os.getloadavg()
    except OSError:
        load = (float("nan"),) * 3
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (f"{os.cpu_count()} CPUs ({cpu}), {debian}, kernel {platform.release()}, "
            f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at start, "
            f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}")


def git_head():
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
