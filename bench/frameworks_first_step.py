"""Time from launch to the FIRST training step of a 2-worker job, per framework, under
`tony submit` (local engine) against the framework's own way of starting 2 processes on this
machine.

The examples print nothing at their first step, so each framework has a probe in bench/probes/
that does what its example does up to and including one training step (same imports, same
distributed initialisation from the same variables, same data, model and optimizer) and then
appends timestamps to <stamp-dir>/<rank>: `start` (the interpreter reached the probe's first
import), `imported` (framework imported), `initialized` (distributed runtime up), `first_step`
(one step done, gradients all-reduced). The same probe runs under both launchers; the probe exits
right after its first step.

Figure: the LAST worker's first_step stamp minus the wall-clock time taken just before the
launcher was started (both on this machine's clock). Also printed: the last worker's `start`
and `initialized` stamps on the same base, and the wall time until the launcher exited.

Peers (the framework's own launcher, or what it does, started by hand):
  pytorch    2 ranks with the variables torchrun sets (Debian's torchrun is broken on Python
             3.11), each in its own session as ddp_overhead.py does
  tensorflow 2 processes with a hand-written TF_CONFIG (2 workers on free localhost ports)
  tensorflow-ps  (--frameworks ...,tensorflow-ps) ParameterServerStrategy: chief, ps and 2
             workers by hand with hand-written TF_CONFIGs; the chief stamps when the first step
             it scheduled on a worker is done, and the servers, which never exit, are killed
             once the chief has (tony stops them itself when the chief succeeds)
  jax        2 processes with JAX_COORDINATOR_ADDRESS=127.0.0.1:<free port>, JAX_NUM_PROCESSES,
             JAX_PROCESS_ID
  horovod    horovodrun --gloo -np 2 -H localhost:2 (horovod 0.28.1's own launcher)
  mxnet      (--frameworks ...,mxnet) scheduler, server and 2 workers by hand with the DMLC_*
             variables (what dmlc-tracker's local launcher does; it is not in the wheel)
Both sides get the example's tony.execution.envs (e.g. OMP_NUM_THREADS=1, JAX_PLATFORMS=cpu).
Runs alternate (tony first on even repetitions); one untimed peer run per framework first warms
the page cache.

usage: /usr/bin/python3 bench/frameworks_first_step.py [--tony PATH] [--reps 3]
                                                       [--frameworks pytorch,tensorflow,jax,horovod]
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchutil as bu  # noqa: E402

PROBES = os.path.join(bu.REPO, "bench", "probes")
EXAMPLES = os.path.join(bu.REPO, "examples")
TF_DATA = os.path.join(tempfile.gettempdir(), "tony-bench-movie-reviews")

FRAMEWORKS = {
    "pytorch": {"example": "pytorch-ddp", "python": bu.SYSTEM_PYTHON, "probe": "probe_torch.py"},
    "tensorflow": {"example": "tensorflow-mwms", "python": "/opt/tony-tf/bin/python",
                   "probe": "probe_tf.py", "params": ["--data-dir", TF_DATA]},
    "tensorflow-ps": {"example": "tensorflow-ps", "python": "/opt/tony-tf/bin/python",
                      "probe": "probe_tf_ps.py", "params": ["--data-dir", TF_DATA],
                      "ranks": ["0"], "tracked": 1},
    "jax": {"example": "jax", "python": "/opt/tony-jax/bin/python", "probe": "probe_jax.py"},
    "mxnet": {"example": "mxnet", "python": "/opt/tony-mxnet/bin/python",
              "probe": "probe_mxnet.py"},
    "horovod": {"example": "horovod", "python": "/opt/tony-hvd/bin/python",
                "probe": "probe_hvd.py"},
}


def conf_file(fw):
    return os.path.join(EXAMPLES, FRAMEWORKS[fw]["example"], "tony.xml")


def execution_envs(fw):
    """The example's tony.execution.envs, given to the peer's processes too."""
    # A regex, not an XML parser: some examples' comments hold "--", which XML forbids.
    with open(conf_file(fw)) as f:
        m = re.search(r"<name>\s*tony\.execution\.envs\s*</name>\s*<value>([^<]*)</value>",
                      f.read())
    return dict(kv.strip().split("=", 1) for kv in m.group(1).split(",") if kv) if m else {}


def read_stamps(d, t0, expected=("0", "1")):
    """Per phase: the latest rank's stamp, in seconds after t0."""
    ranks = sorted(os.listdir(d)) if os.path.isdir(d) else []
    if ranks != list(expected):
        raise RuntimeError(f"expected stamps of ranks 0 and 1 in {d}, found {ranks}")
    phases = {}
    for r in ranks:
        with open(os.path.join(d, r)) as f:
            for line in f:
                k, v = line.split()
                phases[k] = max(phases.get(k, 0.0), float(v) - t0)
    return phases


def tony_args(tony, fw, stamps):
    c = FRAMEWORKS[fw]
    params = ["--stamp-dir", stamps] + c.get("params", [])
    return [tony, "submit", "--executes", c["probe"], "--src_dir", PROBES,
            "--python_binary_path", c["python"], "--conf_file", conf_file(fw),
            "--task_params", " ".join(params)]


def run_tony(tony, fw):
    home = bu.TonyHome()
    stamps = os.path.join(home.path, "stamps")
    try:
        out = open(os.path.join(home.path, "submit.out"), "w+")
        t0, m0 = time.time(), time.monotonic()
        rc = subprocess.run(tony_args(tony, fw, stamps), env=home.env, stdout=out,
                            stderr=subprocess.STDOUT).returncode
        wall = time.monotonic() - m0
        if rc != 0:
            out.seek(0)
            raise RuntimeError(f"{fw}: tony submit exited {rc}:\n{out.read()[-3000:]}")
        r = read_stamps(stamps, t0, FRAMEWORKS[fw].get("ranks", ("0", "1")))
        r["wall"] = wall
        return r
    finally:
        home.cleanup()


def peer_procs(fw, stamps):
    """argv/env per process the peer starts (horovod: one horovodrun)."""
    c = FRAMEWORKS[fw]
    base = dict(os.environ, **execution_envs(fw))
    argv = [c["python"], c["probe"], "--stamp-dir", stamps] + c.get("params", [])
    if fw == "pytorch":
        port = bu.free_port()
        return [(argv, dict(base, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(i),
                            WORLD_SIZE="2", LOCAL_RANK=str(i), LOCAL_WORLD_SIZE="2",
                            GROUP_RANK="0")) for i in range(2)]
    if fw == "tensorflow":
        hosts = [f"127.0.0.1:{bu.free_port()}" for _ in range(2)]
        return [(argv, dict(base, TF_CONFIG=json.dumps(
            {"cluster": {"worker": hosts}, "task": {"type": "worker", "index": i}})))
            for i in range(2)]
    if fw == "tensorflow-ps":
        cluster = {role: [f"127.0.0.1:{bu.free_port()}" for _ in range(n)]
                   for role, n in (("chief", 1), ("ps", 1), ("worker", 2))}
        tasks = [("chief", 0), ("ps", 0), ("worker", 0), ("worker", 1)]
        return [(argv, dict(base, TF_CONFIG=json.dumps(
            {"cluster": cluster, "task": {"type": role, "index": i}}))) for role, i in tasks]
    if fw == "jax":
        addr = f"127.0.0.1:{bu.free_port()}"
        return [(argv, dict(base, JAX_COORDINATOR_ADDRESS=addr, JAX_NUM_PROCESSES="2",
                            JAX_PROCESS_ID=str(i))) for i in range(2)]
    if fw == "mxnet":
        port = str(bu.free_port())
        common = dict(base, DMLC_PS_ROOT_URI="127.0.0.1", DMLC_PS_ROOT_PORT=port,
                      DMLC_NUM_SERVER="1", DMLC_NUM_WORKER="2", DMLC_LOCAL="0")
        return [(argv, dict(common, DMLC_ROLE=role))
                for role in ("scheduler", "server", "worker", "worker")]
    if fw == "horovod":
        bindir = os.path.dirname(c["python"])
        env = dict(base, PATH=bindir + os.pathsep + base.get("PATH", ""))
        return [([os.path.join(bindir, "horovodrun"), "--gloo", "-np", "2", "-H", "localhost:2"]
                 + argv, env)]
    raise ValueError(fw)


def peer_description(fw):
    procs = peer_procs(fw, "<stamps>")
    keys = ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
            "GROUP_RANK", "TF_CONFIG", "JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES",
            "JAX_PROCESS_ID", "DMLC_ROLE", "DMLC_PS_ROOT_URI", "DMLC_PS_ROOT_PORT",
            "DMLC_NUM_SERVER", "DMLC_NUM_WORKER", "DMLC_LOCAL", *execution_envs(fw))
    argv, env = procs[0]
    shown = " ".join(f"{k}={env[k]}" for k in keys if k in env)
    return f"{len(procs)}x (own session, cwd bench/probes) {shown} {' '.join(argv)}"


def run_peer(fw):
    stamps = tempfile.mkdtemp(prefix="tony-bench-stamps-")
    try:
        procs_spec = peer_procs(fw, stamps)
        t0, m0 = time.time(), time.monotonic()
        # Each process in its own session, as tony's local engine starts each task (autogroup
        # scheduling is on here: a session is a CPU-sharing unit).
        procs = [subprocess.Popen(argv, cwd=PROBES, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, start_new_session=True)
                 for argv, env in procs_spec]
        # Processes past `tracked` serve until stopped (tensorflow-ps): killed once the tracked
        # ones are done, as tony stops them.
        tracked = FRAMEWORKS[fw].get("tracked", len(procs))
        outs = [p.communicate()[0] for p in procs[:tracked]]
        wall = time.monotonic() - m0
        for p in procs[tracked:]:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
        for i, p in enumerate(procs[:tracked]):
            if p.returncode != 0:
                raise RuntimeError(f"{fw}: peer process {i} exited {p.returncode}:\n"
                                   f"{outs[i][-3000:]}")
        r = read_stamps(stamps, t0, FRAMEWORKS[fw].get("ranks", ("0", "1")))
        r["wall"] = wall
        return r
    finally:
        shutil.rmtree(stamps, ignore_errors=True)


def ensure_tf_data():
    if not os.path.exists(os.path.join(TF_DATA, "y_test.npy")):
        subprocess.run([FRAMEWORKS["tensorflow"]["python"],
                        os.path.join(EXAMPLES, "tensorflow-mwms", "src", "make_data.py"),
                        "--out", TF_DATA], check=True, stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tony", help="tony binary (default: build-bench/cli/tony or $TONY_BIN)")
    ap.add_argument("--reps", type=int, default=3, help="timed runs per launcher and framework")
    ap.add_argument("--frameworks", default="pytorch,tensorflow,jax,horovod")
    args = ap.parse_args()
    tony = bu.tony_binary(args.tony)
    fws = [f for f in args.frameworks.split(",") if f]
    for fw in fws:
        if not os.access(FRAMEWORKS[fw]["python"], os.X_OK):
            raise SystemExit(f"{fw}: no {FRAMEWORKS[fw]['python']} (scripts/setup-frameworks.sh)")
    if "tensorflow" in fws or "tensorflow-ps" in fws:
        ensure_tf_data()

    print(f"# first training step, 2 workers: tony vs each framework's own launcher; repo HEAD "
          f"{bu.git_head()} at run time; binary {tony}")
    print(f"# machine: {bu.machine_line()}")
    started = time.monotonic()
    results = {}
    for fw in fws:
        print(f"# {fw} tony: {' '.join(tony_args('tony', fw, '<stamps>'))}")
        print(f"# {fw} peer: {peer_description(fw)}", flush=True)
        run_peer(fw)  # warm-up, not counted
        t, p = [], []
        for rep in range(args.reps):
            if rep % 2 == 0:
                t.append(run_tony(tony, fw))
                p.append(run_peer(fw))
            else:
                p.append(run_peer(fw))
                t.append(run_tony(tony, fw))
            print(f"#   {fw} rep {rep}: tony start {t[-1]['start']:.2f} init "
                  f"{t[-1]['initialized']:.2f} first step {t[-1]['first_step']:.2f} wall "
                  f"{t[-1]['wall']:.2f} | peer start {p[-1]['start']:.2f} init "
                  f"{p[-1]['initialized']:.2f} first step {p[-1]['first_step']:.2f} wall "
                  f"{p[-1]['wall']:.2f}", flush=True)
        results[fw] = (t, p)

    def med(rs, k):
        return bu.median([r[k] for r in rs])

    def rng(rs, k):
        xs = [r[k] for r in rs]
        return f"{bu.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"

    print()
    print(f"Seconds after launch (last of the 2 workers): median (min-max) of {args.reps} runs "
          f"each; ratio = tony/peer of the medians")
    rows = []
    for fw, (t, p) in results.items():
        for name, rs in (("tony submit", t), ("peer", p)):
            rows.append([fw, name, rng(rs, "start"), rng(rs, "initialized"),
                         rng(rs, "first_step"), rng(rs, "wall")])
        rows.append([fw, "ratio", f"{med(t, 'start') / med(p, 'start'):.2f}x",
                     f"{med(t, 'initialized') / med(p, 'initialized'):.2f}x",
                     f"{med(t, 'first_step') / med(p, 'first_step'):.2f}x "
                     f"({med(t, 'first_step') - med(p, 'first_step'):+.2f} s)",
                     f"{med(t, 'wall') / med(p, 'wall'):.2f}x"])
    bu.print_table(["framework", "launcher", "probe started", "runtime initialized",
                    "FIRST STEP done", "launcher exited"], rows)
    print(f"# total benchmark time {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
