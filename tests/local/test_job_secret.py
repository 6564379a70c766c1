"""The job's control-plane secret never reaches user code: a hostile task tries what it can as the
same user (its ancestors' /proc environ, cmdline, fds and memory, the coordinator's, every file of
the job dir and TONY_HOME) and then tries every secret-shaped string it found against the control
plane. None may be accepted."""
import json
import os
import subprocess
import time

import pytest

from tonytest import SYSTEM_PYTHON, TONY_BIN, assert_nothing_left, eventually, tony_xml, write

PROBE = os.environ.get("TONY_RPC_PROBE", os.path.join(os.path.dirname(__file__), "../../build/tests/tony_rpc_probe"))

HOSTILE = r'''
import json, os, re, subprocess, sys
probe = sys.argv[1]
HEX = re.compile(rb"[0-9a-f]{64}")
found, tried = {}, {}

def harvest(data, where):
    for m in HEX.findall(data):
        found.setdefault(m.decode(), where)

def read(path, limit=16 << 20):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            data = os.read(fd, limit)
        finally:
            os.close(fd)
        harvest(data, path)
        tried[path] = "read"
    except OSError as e:
        tried[path] = type(e).__name__

def read_memory(pid):
    try:
        maps = open(f"/proc/{pid}/maps").read().splitlines()
        mem = open(f"/proc/{pid}/mem", "rb", buffering=0)
    except OSError as e:
        tried[f"/proc/{pid}/mem"] = type(e).__name__
        return
    total = 0
    for line in maps:
        fields = line.split()
        if "r" not in fields[1] or total > (512 << 20):
            continue
        lo, hi = (int(x, 16) for x in fields[0].split("-"))
        try:
            mem.seek(lo)
            chunk = mem.read(hi - lo)
            total += len(chunk)
            harvest(chunk, f"/proc/{pid}/mem ({open(f'/proc/{pid}/cmdline', 'rb').read()[:200]})")
        except (OSError, ValueError, OverflowError):
            pass
    tried[f"/proc/{pid}/mem"] = "read"

def parent(pid):
    return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])

job_dir = os.environ["TONY_JOB_DIR"]
am = json.load(open(os.path.join(job_dir, "am.json")))
targets, pid = [], os.getppid()
while pid > 1:
    targets.append(pid)
    pid = parent(pid)
targets.append(am["pid"])
def is_tony(pid):
    try:
        argv0 = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[0]
        return os.path.basename(argv0) == b"tony"
    except OSError:
        return False

targets += [int(p) for p in os.listdir("/proc") if p.isdigit() and is_tony(p)]  # every tony process
targets = list(dict.fromkeys(targets))
if sys.argv[2:] == ["--coordinator-only"]:  # the positive control, run from outside the job
    targets = [am["pid"]]
for pid in targets:
    for what in ("environ", "cmdline"):
        read(f"/proc/{pid}/{what}")
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            read(f"/proc/{pid}/fd/{fd}", 1 << 20)
    except OSError as e:
        tried[f"/proc/{pid}/fd"] = type(e).__name__
    read_memory(pid)
for root in {job_dir, os.environ["TONY_HOME"]}:
    for d, _, files in os.walk(root):
        for f in files:
            read(os.path.join(d, f))
harvest("\0".join(f"{k}={v}" for k, v in os.environ.items()).encode(), "os.environ")

address = f"{am['host']}:{am['port']}"
accepted, refusals = [], set()
for s in sorted(found):
    # Without the port-hold preload: an ASan-built probe (the ASan tier's) refuses a library
    # loaded before its runtime. The release tier's probe runs the same either way.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run([probe, address, s], capture_output=True, text=True, env=env)
    if r.returncode == 0:
        accepted.append(s)
    else:
        refusals.add(r.stdout.split(" ", 1)[0])  # the status code's name
json.dump({"tried": tried, "candidates": len(found), "accepted": len(accepted),
           "refusals": sorted(refusals),
           "tony_pids": [p for p in targets if is_tony(p)], "am_pid": am["pid"]},
          open(os.path.join(os.environ["TONY_LOG_DIR"], "hostile.json"), "w"))
if accepted:
    print("the job secret leaked to user code through " + found[accepted[0]], file=sys.stderr)
    sys.exit(3)
'''


def test_a_hostile_task_cannot_find_the_job_secret(tony, tmp_path):
    src = tmp_path / "src"
    write(str(src / "hostile.py"), HOSTILE)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "2", "tony.worker.memory": "256m",
        "tony.application.framework": "generic"})
    # A secret-shaped canary in the client's environment reaches every process of the job: the
    # task must find it (its search works), and the control plane must refuse it.
    env = dict(tony.env, CANARY="c" * 64)
    # Root may read any process's memory (CAP_SYS_PTRACE): the task plays an ordinary user.
    drop = "setpriv --bounding-set -all --inh-caps -all " if os.geteuid() == 0 else ""
    r = subprocess.run([TONY_BIN, "submit", "--executes",
                        f"{drop}{SYSTEM_PYTHON} hostile.py {PROBE}", "--src_dir", str(src),
                        "--conf_file", conf], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not os.path.exists(os.path.join(tony.job_dir(), "secret"))
    for t in tony.status()["tasks"]:
        report = json.load(open(os.path.join(t["log_dir"], "hostile.json")))
        assert report["accepted"] == 0 and report["candidates"] >= 1, report
        # Each was refused by the control plane for its secret (not unreachable, not a crash).
        assert report["refusals"] == ["UNAUTHENTICATED"], report
        # Each tony process it found (its executor, the coordinator, the client) is not dumpable:
        # its environment and memory cannot be read by the same user.
        assert report["am_pid"] in report["tony_pids"] and len(report["tony_pids"]) >= 3, report
        for pid in report["tony_pids"]:
            for what in ("environ", "mem"):
                assert report["tried"][f"/proc/{pid}/{what}"] == "PermissionError", (pid, report)
    assert_nothing_left(tony.home)


def sanitizer_build():
    """Whether TONY_BIN is the ASan+UBSan or the TSan build: its memory is mostly shadow mappings
    that the search cannot read, so the positive control runs against the release build only."""
    ldd = subprocess.run(["ldd", TONY_BIN], capture_output=True, text=True).stdout
    return "libasan" in ldd or "libtsan" in ldd


@pytest.mark.skipif(os.geteuid() != 0,
                    reason="reading the coordinator's memory needs CAP_SYS_PTRACE")
@pytest.mark.skipif(sanitizer_build(), reason="the release tier runs this positive control; under "
                    "a sanitizer the coordinator's memory is shadow mappings the search cannot read")
def test_the_same_search_with_cap_sys_ptrace_finds_the_secret_the_probe_accepts(tony, tmp_path):
    # The positive control of the test above: its search and its probe do find and accept the
    # real secret where it is (the coordinator's memory, readable with CAP_SYS_PTRACE), so their
    # failing from inside a task means the secret is out of reach, not that the search is broken.
    src = tmp_path / "src"
    write(str(src / "hostile.py"), HOSTILE)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "1", "tony.worker.memory": "256m",
        "tony.application.framework": "generic"})
    proc = tony.start("submit", "--executes", "sleep 60", "--conf_file", conf)
    job_id = eventually(lambda: tony.running_job(tasks=1), timeout=60, what="the task to run")
    outside = tmp_path / "outside"
    outside.mkdir()
    env = dict(tony.env, TONY_JOB_DIR=tony.job_dir(job_id), TONY_LOG_DIR=str(outside))
    r = subprocess.run([SYSTEM_PYTHON, str(src / "hostile.py"), PROBE, "--coordinator-only"],
                       env=env, capture_output=True, text=True, timeout=120)
    report = json.load(open(outside / "hostile.json"))
    assert r.returncode == 3 and "the job secret leaked" in r.stderr, (r.stderr, report)
    assert report["accepted"] == 1, report
    assert tony.run("kill", job_id).returncode == 0
    proc.communicate(timeout=30)
    assert_nothing_left(tony.home)


def _rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS in /proc/{pid}/status")


def test_a_flood_of_large_requests_without_the_secret_is_refused_and_bounded(tony, tmp_path):
    # Issue 28: whoever reaches the port may send requests of any size. A call without the secret
    # is refused on its headers, before its message is read (rpc/server_auth.h), and a request
    # over 4 MiB is refused in any case, so 4 peers each sending eight 32 MiB requests leave the
    # coordinator's memory where it was and the job running to its end.
    go = tmp_path / "go"
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "1", "tony.worker.memory": "256m",
        "tony.application.framework": "generic"})
    proc = tony.start("submit", "--executes", f"sh -c 'while [ ! -e {go} ]; do sleep 0.1; done'",
                      "--conf_file", conf)
    job_id = eventually(lambda: tony.running_job(tasks=1), timeout=60, what="the task to run")
    with open(os.path.join(tony.job_dir(job_id), "am.json")) as f:
        am = json.load(f)
    start_rss = _rss_kib(am["pid"])
    floods = [subprocess.Popen([PROBE, f"{am['host']}:{am['port']}", "f" * 64,
                                "--pad", str(32 << 20), "--calls", "8"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(4)]
    peak_rss = start_rss
    try:
        while any(p.poll() is None for p in floods):
            peak_rss = max(peak_rss, _rss_kib(am["pid"]))
            time.sleep(0.02)
        answers = [line.split(" ", 1)[0] for p in floods
                   for line in p.communicate()[0].splitlines()]
        assert len(answers) == 32, answers
        assert set(answers) <= {"UNAUTHENTICATED", "RESOURCE_EXHAUSTED"}, answers
        # ASan's quarantine holds freed memory (up to 256 MiB) on purpose, and TSan's allocator
        # keeps its own caches: the bound is the release build's, where freed requests go back.
        if not sanitizer_build():
            assert peak_rss - start_rss < 64 << 10, (start_rss, peak_rss)
    finally:
        go.touch()  # a failed assertion must not leave the job running
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    assert tony.status(job_id)["final_status"] == "SUCCEEDED"
    assert_nothing_left(tony.home)
