"""Startup latency, wall time and per-process peak memory of `tony submit` on the local engine,
for N tasks of a trivial command, against a bare launcher (bench/bare_launch.py) as the floor.

What is measured, per run:
  * startup: from just before `tony submit` is exec'd to the moment the LAST user process is
    running. Each user process records that moment itself: the command is
        printf %s "$EPOCHREALTIME" > "$TONY_LOG_DIR/started"
    i.e. `true` plus one write done by a bash builtin (no extra exec), so the timestamp is taken
    inside the user's process after tony's executor has spawned it, not when the coordinator
    thinks it released the spec. The RUNNING events in events.jsonl are shown beside it, as a
    breakdown, but are not the measure: an executor logs RUNNING before it builds the user's
    environment and forks bash.
  * wall: from the same start until `tony submit` has exited (job succeeded, summary printed).
  * peak memory (separate runs whose command also sleeps, so the processes live long enough to
    be sampled): VmHWM (the kernel's peak resident set) of the client (`tony submit`), the
    coordinator (`tony am`) and every executor (`tony executor`), and the largest RssAnon seen
    (private memory; VmHWM counts shared library pages in every process).

The peer: the same N copies of the same command started by bare_launch.py, a separate Python
process that Popens them and waits (so both sides pay for starting a launcher process). Runs
alternate tony/bare so both see the same background load.

usage: /usr/bin/python3 bench/local_startup.py [--tony build-bench/cli/tony] [--reps 10]
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchutil as bu  # noqa: E402

STAMP = 'printf %s "$EPOCHREALTIME" > "$TONY_LOG_DIR/started"'
BARE_LAUNCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bare_launch.py")


def read_stamps(pattern, n):
    paths = glob.glob(pattern)
    if len(paths) != n:
        raise RuntimeError(f"expected {n} start stamps at {pattern}, found {len(paths)}")
    stamps = []
    for p in paths:
        with open(p) as f:
            stamps.append(float(f.read().strip().replace(",", ".")))
    return stamps


def classify_tony(argv):
    if len(argv) >= 2 and os.path.basename(argv[0]) == "tony":
        return {"submit": "client", "am": "coordinator", "executor": "executor"}.get(argv[1])
    return None


def classify_bare(argv):
    return "launcher" if any(a.endswith("bare_launch.py") for a in argv) else None


def tony_args(tony, n, command, xml):
    return [tony, "submit", "--executes", command, "--conf_file", xml,
            "--conf", f"tony.local.vcores={max(n, 2)}"]


def run_tony(tony, n, command, sample=False, stamps=True):
    home = bu.TonyHome()
    try:
        xml = bu.write_tony_xml(os.path.join(home.path, "tony.xml"), {
            "tony.application.name": f"bench-startup-{n}",
            "tony.application.framework": "generic",
            "tony.worker.instances": n,
            "tony.worker.vcores": 1,
            "tony.worker.memory": "256m",
        })
        out = open(os.path.join(home.path, "submit.out"), "w+")
        t0 = time.time()
        m0 = time.monotonic()
        proc = subprocess.Popen(tony_args(tony, n, command, xml), env=home.env, stdout=out,
                                stderr=subprocess.STDOUT)
        sampler = None
        if sample:
            with bu.PeakMemorySampler(proc.pid, classify_tony) as sampler:
                rc = proc.wait()
        else:
            rc = proc.wait()
        wall = time.monotonic() - m0
        if rc != 0:
            out.seek(0)
            raise RuntimeError(f"tony submit exited {rc}:\n{out.read()}")
        if not stamps:
            return {"wall": wall}
        job = home.job_dir()
        events = bu.read_events(job)

        def last(*states):
            # When the task whose registration completes the gang is released in the same step,
            # events.jsonl records only its RUNNING (it is a diff of snapshots), so "reached
            # REGISTERED" means the first event in any of `states`, per task.
            first = {}
            for e in events:
                if e.get("state") in states:
                    first.setdefault(e["task"], e["time_ms"])
            if len(first) != n:
                raise RuntimeError(f"{len(first)} tasks reached {states} in {job}, expected {n}")
            return max(first.values()) / 1000.0 - t0

        r = {"wall": wall,
             "registered": last("REGISTERED", "RUNNING"),
             "spec_released": last("RUNNING"),
             "user_running": max(read_stamps(os.path.join(job, "tasks/*/attempt-*/started"), n))
             - t0,
             "tasks_done": last("SUCCEEDED"),
             "job_done": [e["time_ms"] for e in events if "job" in e][0] / 1000.0 - t0}
        if sampler:
            r["mem"] = sampler.peaks
        return r
    finally:
        home.cleanup()


def run_bare(n, command, sample=False, stamps=True):
    root = tempfile.mkdtemp(prefix="tony-bench-bare-")
    try:
        t0 = time.time()
        m0 = time.monotonic()
        proc = subprocess.Popen([bu.SYSTEM_PYTHON, "-I", "-S", BARE_LAUNCH, str(n), root, command])
        sampler = None
        if sample:
            with bu.PeakMemorySampler(proc.pid, classify_bare) as sampler:
                rc = proc.wait()
        else:
            rc = proc.wait()
        wall = time.monotonic() - m0
        if rc != 0:
            raise RuntimeError(f"bare launcher exited {rc}")
        if not stamps:
            return {"wall": wall}
        r = {"wall": wall,
             "user_running": max(read_stamps(os.path.join(root, "*/started"), n)) - t0}
        if sampler:
            r["mem"] = sampler.peaks
        return r
    finally:
        bu.shutil.rmtree(root, ignore_errors=True)


def ms(x):
    return f"{x * 1000:.0f}"


def spread(xs):
    return f"{ms(bu.median(xs))} ({ms(min(xs))}-{ms(max(xs))})"


def mb(kb):
    return f"{kb / 1024:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tony", help="tony binary (default: build-bench/cli/tony or $TONY_BIN)")
    ap.add_argument("--tasks", default="2,16", help="comma-separated task counts")
    ap.add_argument("--reps", type=int, default=10, help="timed repetitions per N and launcher")
    ap.add_argument("--mem-reps", type=int, default=2, help="memory-sampled repetitions per N")
    ap.add_argument("--mem-sleep", type=float, default=2.0,
                    help="seconds each user process sleeps in the memory runs")
    args = ap.parse_args()
    tony = bu.tony_binary(args.tony)
    counts = [int(x) for x in args.tasks.split(",")]

    print(f"# tony local-engine startup benchmark; repo HEAD {bu.git_head()} at run time; binary {tony}")
    print(f"# machine: {bu.machine_line()}")
    print(f"# user command: {STAMP}")
    print(f"# tony: {' '.join(tony_args('tony', 0, '<cmd>', 'tony.xml'))[:-1]}N  "
          f"(tony.xml: generic, tony.worker.instances=N, vcores 1, memory 256m)")
    print(f"# bare: {bu.SYSTEM_PYTHON} -I -S bench/bare_launch.py N <dir> <cmd>")
    started = time.monotonic()

    timing, true_wall = {}, {}
    for n in counts:
        run_tony(tony, n, STAMP)  # warm-up (page cache, first exec), not counted
        t, b = [], []
        for rep in range(args.reps):
            # Alternate which side goes first so a drift in background load hits both.
            if rep % 2 == 0:
                t.append(run_tony(tony, n, STAMP))
                b.append(run_bare(n, STAMP))
            else:
                b.append(run_bare(n, STAMP))
                t.append(run_tony(tony, n, STAMP))
        timing[n] = (t, b)
        # The literal `true`, for the wall time only (no stamp, so no startup figure).
        tt, bt = [], []
        for rep in range(args.reps):
            pair = [lambda: tt.append(run_tony(tony, n, "true", stamps=False)),
                    lambda: bt.append(run_bare(n, "true", stamps=False))]
            for f in (pair if rep % 2 == 0 else pair[::-1]):
                f()
        true_wall[n] = ([x["wall"] for x in tt], [x["wall"] for x in bt])
        for i, (x, y) in enumerate(zip(t, b)):
            print(f"#   N={n} rep {i}: tony running {ms(x['user_running'])} ms wall "
                  f"{ms(x['wall'])} ms | bare running {ms(y['user_running'])} ms wall "
                  f"{ms(y['wall'])} ms")

    print()
    print(f"Startup and wall time, ms: median (min-max) of {args.reps} runs each")
    rows = []
    for n, (t, b) in timing.items():
        tr, br = [x["user_running"] for x in t], [x["user_running"] for x in b]
        tw, bw = [x["wall"] for x in t], [x["wall"] for x in b]
        rows.append([n, spread(tr), spread(br), f"{bu.median(tr) / bu.median(br):.1f}x",
                     spread(tw), spread(bw), f"{bu.median(tw) / bu.median(bw):.1f}x"])
    bu.print_table(["N", "tony: all running", "bare: all running", "ratio",
                    "tony: wall", "bare: wall", "ratio"], rows)

    print()
    print(f"Wall time with the literal command `true`, ms: median (min-max) of {args.reps} runs each")
    rows = []
    for n, (tw, bw) in true_wall.items():
        rows.append([n, spread(tw), spread(bw), f"{bu.median(tw) / bu.median(bw):.1f}x"])
    bu.print_table(["N", "tony: wall", "bare: wall", "ratio"], rows)

    print()
    print("tony's timeline, ms after `tony submit` started (medians; last task of N each)")
    rows = []
    for n, (t, _) in timing.items():
        rows.append([n] + [ms(bu.median([x[k] for x in t])) for k in
                           ("registered", "spec_released", "user_running", "tasks_done",
                            "job_done", "wall")])
    bu.print_table(["N", "all REGISTERED", "all RUNNING (spec out)", "all user procs running",
                    "all SUCCEEDED", "job outcome", "submit exited"], rows)

    print()
    mem_cmd = f"{STAMP}; sleep {args.mem_sleep:g}"
    print(f"Peak memory, MB (command: {mem_cmd}; {args.mem_reps} runs each, medians over runs;"
          f" sampled every 50 ms)")
    rows = []
    for n in counts:
        per_run = []
        for rep in range(args.mem_reps):
            t = run_tony(tony, n, mem_cmd, sample=True)["mem"]
            b = run_bare(n, mem_cmd, sample=True)["mem"]
            kinds = {k: [p for p in t.values() if p["kind"] == k]
                     for k in ("client", "coordinator", "executor")}
            if len(kinds["coordinator"]) != 1 or len(kinds["executor"]) != n:
                raise RuntimeError(f"sampled {len(kinds['coordinator'])} coordinators and "
                                   f"{len(kinds['executor'])} executors for N={n}")
            ex = kinds["executor"]
            per_run.append({
                "client": kinds["client"][0]["hwm_kb"],
                "coord": kinds["coordinator"][0]["hwm_kb"],
                "coord_anon": kinds["coordinator"][0]["anon_kb"],
                "exec_med": bu.median([p["hwm_kb"] for p in ex]),
                "exec_max": max(p["hwm_kb"] for p in ex),
                "exec_anon": bu.median([p["anon_kb"] for p in ex]),
                "total": sum(p["hwm_kb"] for p in t.values()),
                "total_anon": sum(p["anon_kb"] for p in t.values()),
                "bare": sum(p["hwm_kb"] for p in b.values()),
                "bare_anon": sum(p["anon_kb"] for p in b.values()),
            })
        med = {k: bu.median([r[k] for r in per_run]) for k in per_run[0]}
        rows.append([n, mb(med["client"]), f"{mb(med['coord'])} / {mb(med['coord_anon'])}",
                     f"{mb(med['exec_med'])} (max {mb(med['exec_max'])}) / {mb(med['exec_anon'])}",
                     f"{mb(med['total'])} / {mb(med['total_anon'])}",
                     f"{mb(med['bare'])} / {mb(med['bare_anon'])}"])
    bu.print_table(["N", "client VmHWM", "coordinator VmHWM / anon",
                    "executor VmHWM median / anon", "tony sum VmHWM / anon",
                    "bare launcher VmHWM / anon"], rows)
    print()
    print(f"# total benchmark time {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
