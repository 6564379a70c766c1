"""Recovery after a task's failure on the local engine: tony's restart policies against torchrun's
restart of its worker group, on the same 2-rank job (probes/probe_recovery.py), where rank 1
SIGKILLs itself once after both ranks reached a marker.

Figures, per run, from stamps the processes write (unix time, one machine):
  gang scope: failure (rank 1's stamp just before it dies) to both ranks of the new attempt
    having passed init_process_group (gloo) again; also to both new processes started.
    tony: framework pytorch, `tony.worker.restart-scope=gang`.
  task scope: failure to the replacement of rank 1 running (its first line). The job has no
    collective and does not import torch, so no peer depends on the dead task.
    tony: framework generic, `tony.worker.restart-scope=task` (rank 0 runs on untouched).
Both: `tony.worker.restart-policy=on-failure`, `tony.worker.max-restarts=1`,
`tony.worker.restart-backoff-ms=0` and `...-max-ms=0` (no backoff: the machinery alone).

The peer is torchrun of Debian's python3-torch 1.13 (`--nnodes 1 --nproc_per_node 2
--max_restarts 1 --rdzv_backend c10d`, a fresh endpoint per run), run through
torchrun_py311.py, which fixes only the Python 3.11 incompatibility that stops every torchrun
launch here. torchrun has no task scope: on any worker's failure its agent stops the whole local
worker group and starts it again, so in task scope it is measured doing that. Its agent notices a
failure by polling its workers every `--monitor_interval` seconds (default 5); it is run at each
interval given by --monitor-intervals (default: its default 5 and 0.1). torchrun starts its
workers in its own session; --torchrun-worker-sessions gives each its own, as tony's local engine
does (with the kernel's autogroup scheduling a session is a CPU-sharing unit, which matters on a
loaded machine: importing torch in both new ranks is most of the gang figure).

For tony the job's events.jsonl gives a breakdown, relative to the failure stamp: the failed task's
FAILED event (the coordinator knows), the last end of the old attempt (gang: the peer stopped),
and the last RUNNING of the new attempt (the cluster spec released to the new executors).

Fails (non-zero exit, the reason) if a run does not recover: a launcher that does not exit 0 or a
stamp that is missing. Nothing is asserted about time.

usage: /usr/bin/python3 bench/recovery.py [--tony build-bench/cli/tony] [--reps 5]
         [--scopes gang,task] [--monitor-intervals 5,0.1] [--torchrun-worker-sessions]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchutil as bu  # noqa: E402

PROBES = os.path.join(bu.REPO, "bench", "probes")
PROBE = "probe_recovery.py"
TORCHRUN = os.path.join(bu.REPO, "bench", "torchrun_py311.py")
TIMEOUT_S = 300
FRAMEWORK = {"gang": "pytorch", "task": "generic"}


def tony_conf(scope):
    return {
        "tony.application.name": f"recovery-{scope}",
        "tony.application.framework": FRAMEWORK[scope],
        "tony.worker.instances": "2",
        "tony.worker.memory": "1g",
        "tony.worker.vcores": "1",
        "tony.worker.restart-policy": "on-failure",
        "tony.worker.max-restarts": "1",
        "tony.worker.restart-scope": scope,
        "tony.worker.restart-backoff-ms": "0",
        "tony.worker.restart-backoff-max-ms": "0",
        "tony.execution.envs": "OMP_NUM_THREADS=1",
    }


def tony_args(tony, scope, conf, stamps):
    return [tony, "submit", "--executes", PROBE, "--src_dir", PROBES,
            "--task_params", f"--stamp-dir {stamps} --mode {scope}",
            "--python_binary_path", bu.SYSTEM_PYTHON, "--conf_file", conf]


def torchrun_args(scope, interval, port, stamps):
    return [bu.SYSTEM_PYTHON, TORCHRUN, "--nnodes", "1", "--nproc_per_node", "2",
            "--max_restarts", "1", "--monitor_interval", str(interval),
            "--rdzv_backend", "c10d", "--rdzv_endpoint", f"127.0.0.1:{port}",
            "--rdzv_id", f"recovery-{port}", PROBE, "--stamp-dir", stamps, "--mode", scope]


def read_stamp(stamps, name, where):
    path = os.path.join(stamps, name)
    try:
        with open(path) as f:
            return float(f.read())
    except (OSError, ValueError) as e:
        raise SystemExit(f"{where}: did not recover: no stamp {name} ({e}); stamps: "
                         f"{sorted(os.listdir(stamps))}")


def figures(stamps, scope, where):
    failed = read_stamp(stamps, "failed", where)
    if scope == "task":  # rank 0 is not restarted under tony: rank 1's replacement alone
        started = read_stamp(stamps, "start-1-1", where) - failed
        return {"failed": failed, "started": started, "recovered": started}
    started = max(read_stamp(stamps, f"start-1-{r}", where) for r in range(2))
    inited = max(read_stamp(stamps, f"init-1-{r}", where) for r in range(2))
    return {"failed": failed, "started": started - failed, "recovered": inited - failed}


def run_checked(argv, where, **kw):
    out = tempfile.TemporaryFile(mode="w+")
    try:
        rc = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, timeout=TIMEOUT_S,
                            start_new_session=True, **kw).returncode
    except subprocess.TimeoutExpired:
        rc = "timed out"
    if rc != 0:
        out.seek(0)
        raise SystemExit(f"{where}: did not recover: exit {rc}:\n{out.read()[-4000:]}")


def tony_breakdown(job_dir, scope, failed):
    """Seconds after the failure stamp: the coordinator saw the failure, the old attempt was all
    ended, the new attempt was all RUNNING (spec released); in task scope, of worker:1 alone."""
    ev = [e for e in bu.read_events(job_dir)
          if "task" in e and (scope == "gang" or e["task"] == "worker:1")]
    seen = [e["time_ms"] for e in ev if e["task"] == "worker:1" and e["attempt"] == 0
            and e["state"] == "FAILED"]
    ended = [e["time_ms"] for e in ev if e["attempt"] == 0
             and e["state"] in ("FAILED", "STOPPED", "KILLED", "SUCCEEDED")]
    running = [e["time_ms"] for e in ev if e["attempt"] == 1 and e["state"] == "RUNNING"]
    return {"seen": min(seen) / 1e3 - failed if seen else float("nan"),
            "old_ended": max(ended) / 1e3 - failed if ended else float("nan"),
            "running": max(running) / 1e3 - failed if running else float("nan")}


def run_tony(tony, scope):
    home = bu.TonyHome(prefix="tony-bench-recovery-")
    try:
        stamps = os.path.join(home.path, "stamps")
        conf = bu.write_tony_xml(os.path.join(home.path, "tony.xml"), tony_conf(scope))
        run_checked(tony_args(tony, scope, conf, stamps), f"tony {scope}", env=home.env)
        r = figures(stamps, scope, f"tony {scope}")
        r.update(tony_breakdown(home.job_dir(), scope, r["failed"]))
        return r
    finally:
        home.cleanup()


def run_torchrun(scope, interval, own_sessions):
    stamps = tempfile.mkdtemp(prefix="tony-bench-recovery-torchrun-")
    try:
        env = dict(os.environ, OMP_NUM_THREADS="1",
                   TORCHRUN_WORKER_SESSIONS="1" if own_sessions else "0")
        run_checked(torchrun_args(scope, interval, bu.free_port(), stamps),
                    f"torchrun {scope} --monitor_interval {interval}", cwd=PROBES, env=env)
        return figures(stamps, scope, f"torchrun {scope}")
    finally:
        shutil.rmtree(stamps, ignore_errors=True)


def rng(xs):
    return f"{bu.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tony", help="tony binary (default: build-bench/cli/tony or $TONY_BIN)")
    ap.add_argument("--reps", type=int, default=5, help="timed runs per launcher and scope")
    ap.add_argument("--scopes", default="gang,task", help="gang, task or both")
    ap.add_argument("--monitor-intervals", default="5,0.1",
                    help="torchrun --monitor_interval values to run (seconds)")
    ap.add_argument("--torchrun-worker-sessions", action="store_true",
                    help="start each torchrun worker in its own session, as tony starts each "
                         "task (see torchrun_py311.py)")
    args = ap.parse_args()
    tony = bu.tony_binary(args.tony)
    scopes = [s for s in args.scopes.split(",") if s]
    if not scopes or any(s not in FRAMEWORK for s in scopes):
        raise SystemExit(f"--scopes: {args.scopes!r}; expected gang, task or gang,task")
    intervals = [float(x) for x in args.monitor_intervals.split(",") if x]

    print(f"# recovery after rank 1's SIGKILL, local engine; repo HEAD {bu.git_head()} at run "
          f"time; binary {tony}")
    print(f"# machine: {bu.machine_line()}")
    for s in scopes:
        print(f"# tony {s}: {' '.join(tony_args('tony', s, 'tony.xml', '<stamps>'))}  with "
              f"tony.xml: " + ", ".join(f"{k}={v}" for k, v in tony_conf(s).items()))
        sessions = "=1" if args.torchrun_worker_sessions else "=0"
        print(f"# torchrun {s}: (cwd bench/probes, OMP_NUM_THREADS=1 "
              f"TORCHRUN_WORKER_SESSIONS{sessions}) "
              + " ".join(torchrun_args(s, "<interval>", "<free port>", "<stamps>")))
    started = time.monotonic()
    results = {}
    for scope in scopes:
        launchers = ["tony"] + [f"torchrun {i:g}" for i in intervals]
        runs = {name: [] for name in launchers}
        for rep in range(args.reps):
            order = launchers[rep % len(launchers):] + launchers[:rep % len(launchers)]
            for name in order:
                if name == "tony":
                    r = run_tony(tony, scope)
                else:
                    r = run_torchrun(scope, float(name.split()[1]), args.torchrun_worker_sessions)
                runs[name].append(r)
            line = " | ".join(f"{n} {runs[n][-1]['recovered']:.2f} s" for n in launchers)
            t = runs["tony"][-1]
            print(f"#   {scope} rep {rep}: {line}  (tony: failure seen +{t['seen']:.3f}, old "
                  f"attempt ended +{t['old_ended']:.3f}, new attempt RUNNING "
                  f"+{t['running']:.3f}, processes started +{t['started']:.3f})", flush=True)
        results[scope] = runs

    for scope, runs in results.items():
        print()
        what = ("both ranks passed init_process_group again" if scope == "gang"
                else "rank 1's replacement running")
        print(f"{scope} scope: seconds from the failure to {what}; median (min-max) of "
              f"{args.reps} runs")
        rows = []
        for name, rs in runs.items():
            label = "tony" if name == "tony" else \
                f"torchrun --monitor_interval {name.split()[1]}"
            rows.append([label, rng([r["recovered"] for r in rs]),
                         rng([r["started"] for r in rs])])
        bu.print_table(["launcher", "recovered", "new processes all started"], rows)
        t = runs["tony"]
        print(f"tony breakdown (medians, s after the failure): coordinator saw the failure "
              f"{bu.median([r['seen'] for r in t]):.3f}, old attempt all ended "
              f"{bu.median([r['old_ended'] for r in t]):.3f}, new attempt all RUNNING "
              f"{bu.median([r['running'] for r in t]):.3f}")
        tm = bu.median([r["recovered"] for r in t])
        for name in runs:
            if name != "tony":
                pm = bu.median([r["recovered"] for r in runs[name]])
                print(f"ratio tony/torchrun (--monitor_interval {name.split()[1]}), median: "
                      f"{tm / pm:.2f}x (difference {tm - pm:+.2f} s)")
    print(f"# total benchmark time {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
