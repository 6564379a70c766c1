"""Startup and wall time of N trivial tasks on YARN (the test minicluster): `tony submit --engine
yarn` against YARN's own DistributedShell (Client + ApplicationMaster).

Each task's command is `date +%s.%N >> <stamps>` (one line per task, appended; all NodeManagers of
the minicluster are on this machine), so "all N running" is the latest stamp minus the wall-clock
time taken just before the client was started. Wall time is measured around the client process
(tony submit, or DistributedShell's Client, which polls the RM once a second and so ends on a
1 s tick). Peak memory: a thread walks /proc every 50 ms and keeps the last VmHWM of every tony
coordinator (`tony am`)/executor process and of DistributedShell's ApplicationMaster JVM (these run under
the NodeManagers, not under the client).

The minicluster: tests/minicluster/start.sh <confdir> 2 (MiniDFS + MiniYARN, 2 NodeManagers), run
here and stopped (stdin closed) at the end, unless --conf-dir names one already running.

DistributedShell: Maven Central has no hadoop-yarn-applications-distributedshell 3.5.0 (the
minicluster's version; checked 2026-12-02: 404, newest listed 3.4.2), so 3.4.2 is used against the
3.5.0 cluster, with commons-cli 1.9.0 and jersey-client/-core 1.19.4 (which its Client needs and
the shaded hadoop-client jars do not carry) in front of the minicluster's own classpath; its
Client puts its own classpath into the AM's when yarn.is.minicluster is set. Get them with:
  mkdir -p /tmp/dshell && cd /tmp/dshell && for u in \\
    org/apache/hadoop/hadoop-yarn-applications-distributedshell/3.4.2/hadoop-yarn-applications-distributedshell-3.4.2.jar \\
    commons-cli/commons-cli/1.9.0/commons-cli-1.9.0.jar \\
    com/sun/jersey/jersey-client/1.19.4/jersey-client-1.19.4.jar \\
    com/sun/jersey/jersey-core/1.19.4/jersey-core-1.19.4.jar; do
    curl -fO https://repo.maven.apache.org/maven2/$u; done

usage: /usr/bin/python3 bench/yarn_startup.py [--tony PATH] [--tasks 2,8] [--reps 3]
                                              [--dshell-dir /tmp/dshell] [--conf-dir DIR]
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchutil as bu  # noqa: E402

MINICLUSTER = os.path.join(bu.REPO, "tests", "minicluster")
DS_PKG = "org.apache.hadoop.yarn.applications.distributedshell"


def start_minicluster(conf_dir):
    p = subprocess.Popen([os.path.join(MINICLUSTER, "start.sh"), conf_dir, "2"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout:
        if line.startswith("MINICLUSTER READY"):
            return p
    p.stdin.close()
    p.wait()
    raise RuntimeError("minicluster did not start")


def stop_minicluster(p):
    p.stdin.close()
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def classify(argv):
    for i, a in enumerate(argv[:-1]):
        if os.path.basename(a) == "tony" and argv[i + 1] in ("am", "executor"):
            return {"am": "tony coordinator (am)", "executor": "tony executor"}[argv[i + 1]]
    if any(a == DS_PKG + ".ApplicationMaster" for a in argv):
        return "DS ApplicationMaster"
    return None


class SystemSampler:
    """Every 50 ms: last VmHWM (peak RSS) and max RssAnon of every process classify() names."""

    def __init__(self):
        self.peaks = {}
        self.kinds = {}
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()

    def _run(self):
        while not self._stop.is_set():
            for d in os.listdir("/proc"):
                if not d.isdigit():
                    continue
                try:
                    with open(f"/proc/{d}/cmdline", "rb") as f:
                        argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
                    kind = classify(argv) if argv else None
                    if kind is None:
                        continue
                    with open(f"/proc/{d}/stat") as f:
                        ppid = f.read().rsplit(")", 1)[1].split()[1]
                    if self.kinds.get(ppid) == kind:
                        # a child between fork and exec still shows its parent's command line
                        self.peaks.pop(d, None)
                        continue
                    self.kinds[d] = kind
                    hwm, anon = bu._status_kb(d, "VmHWM"), bu._status_kb(d, "RssAnon")
                except OSError:
                    continue
                if hwm:
                    p = self.peaks.setdefault(d, {"kind": kind, "hwm_kb": 0, "anon_kb": 0})
                    p["hwm_kb"] = max(p["hwm_kb"], hwm)
                    p["anon_kb"] = max(p["anon_kb"], anon)
            self._stop.wait(0.05)

    def by_kind(self, kind):
        return [p for p in self.peaks.values() if p["kind"] == kind]


def read_stamps(path, n, t0):
    with open(path) as f:
        xs = [float(x) for x in f.read().split()]
    if len(xs) != n:
        raise RuntimeError(f"expected {n} stamps in {path}, found {len(xs)}")
    return max(xs) - t0


def tony_xml(path, n):
    return bu.write_tony_xml(path, {"tony.application.framework": "generic",
                                    "tony.worker.instances": n, "tony.worker.vcores": 1,
                                    "tony.worker.memory": "256m"})


def run_tony(tony, conf_dir, n):
    home = bu.TonyHome()
    stamps = os.path.join(home.path, "stamps")
    try:
        env = dict(home.env, HADOOP_CONF_DIR=conf_dir)
        argv = [tony, "submit", "--engine", "yarn", "--executes", f"date +%s.%N >> {stamps}",
                "--conf_file", tony_xml(os.path.join(home.path, "tony.xml"), n)]
        out = open(os.path.join(home.path, "submit.out"), "w+")
        with SystemSampler() as s:
            t0, m0 = time.time(), time.monotonic()
            rc = subprocess.run(argv, env=env, stdout=out, stderr=subprocess.STDOUT).returncode
            wall = time.monotonic() - m0
        if rc != 0:
            out.seek(0)
            raise RuntimeError(f"tony submit exited {rc}:\n{out.read()[-3000:]}")
        return {"running": read_stamps(stamps, n, t0), "wall": wall, "mem": s}
    finally:
        home.cleanup()


def ds_args(dshell_dir, conf_dir, n, stamps):
    jar = glob.glob(os.path.join(dshell_dir, "hadoop-yarn-applications-distributedshell-*.jar"))[0]
    extra = [p for p in sorted(glob.glob(os.path.join(dshell_dir, "*.jar"))) if p != jar]
    with open(os.path.join(MINICLUSTER, "target", "classpath.txt")) as f:
        mc = f.read().strip()
    # target/classes: the minicluster's log4j.properties, for the Client's log
    cp = ":".join([conf_dir, jar] + extra + [os.path.join(MINICLUSTER, "target", "classes"), mc])
    return ["java", "-Xmx256m", "-Dminicluster.log.level=INFO", "-cp", cp, DS_PKG + ".Client", "-jar", jar,
            "-shell_script", stamps + ".sh", "-num_containers", str(n),
            "-container_memory", "256", "-master_memory", "256"]


def run_ds(dshell_dir, conf_dir, n):
    d = tempfile.mkdtemp(prefix="tony-bench-ds-")
    stamps = os.path.join(d, "stamps")
    try:
        out = open(os.path.join(d, "client.out"), "w+")
        # A script, not -shell_command: the AM appends "1>stdout" after the command, which would
        # take the place of a ">> file" in it.
        with open(stamps + ".sh", "w") as f:
            f.write(f"date +%s.%N >> {stamps}\n")
        env = dict(os.environ, HADOOP_CONF_DIR=conf_dir)
        with SystemSampler() as s:
            t0, m0 = time.time(), time.monotonic()
            rc = subprocess.run(ds_args(dshell_dir, conf_dir, n, stamps), env=env, stdout=out,
                                stderr=subprocess.STDOUT).returncode
            wall = time.monotonic() - m0
        out.seek(0)
        text = out.read()
        if rc != 0:  # the Client exits 0 only when the application succeeded
            raise RuntimeError(f"DistributedShell exited {rc}:\n{text[-3000:]}")
        return {"running": read_stamps(stamps, n, t0), "wall": wall, "mem": s}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tony")
    ap.add_argument("--tasks", default="2,8")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dshell-dir", default="/tmp/dshell")
    ap.add_argument("--conf-dir", help="a running minicluster's conf dir (default: start one)")
    args = ap.parse_args()
    tony = bu.tony_binary(args.tony)
    ns = [int(x) for x in args.tasks.split(",")]

    print(f"# tony --engine yarn vs DistributedShell on the minicluster (2 NMs); repo HEAD "
          f"{bu.git_head()} at run time; binary {tony}")
    print(f"# machine: {bu.machine_line()}")
    print(f"# tony: HADOOP_CONF_DIR=<conf> tony submit --engine yarn --executes "
          f"'date +%s.%N >> <stamps>' --conf_file tony.xml (generic, worker.instances=N, "
          f"vcores 1, memory 256m)")
    print(f"# DS:   HADOOP_CONF_DIR=<conf> {' '.join(ds_args(args.dshell_dir, '<conf>', 'N', '<stamps>')[:3])} "
          f"-cp <jars> {DS_PKG}.Client -jar <dshell jar> -shell_script <stamps>.sh "
          f"(holding 'date +%s.%N >> <stamps>') "
          f"-num_containers N -container_memory 256 -master_memory 256")
    started = time.monotonic()
    mc, conf_dir = None, args.conf_dir
    if not conf_dir:
        conf_dir = tempfile.mkdtemp(prefix="tony-bench-mc-")
        mc = start_minicluster(conf_dir)
        print(f"# minicluster up after {time.monotonic() - started:.0f} s", flush=True)
    results = {}
    try:
        for n in ns:
            run_tony(tony, conf_dir, n)  # warm-up of each side, not counted
            run_ds(args.dshell_dir, conf_dir, n)
            t, d = [], []
            for rep in range(args.reps):
                if rep % 2 == 0:
                    t.append(run_tony(tony, conf_dir, n))
                    d.append(run_ds(args.dshell_dir, conf_dir, n))
                else:
                    d.append(run_ds(args.dshell_dir, conf_dir, n))
                    t.append(run_tony(tony, conf_dir, n))
                print(f"#   N={n} rep {rep}: tony running {t[-1]['running']:.2f} wall "
                      f"{t[-1]['wall']:.2f} | DS running {d[-1]['running']:.2f} wall "
                      f"{d[-1]['wall']:.2f}", flush=True)
            results[n] = (t, d)
    finally:
        if mc:
            stop_minicluster(mc)
            shutil.rmtree(conf_dir, ignore_errors=True)

    def rng(rs, k):
        xs = [r[k] for r in rs]
        return f"{bu.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"

    print()
    print(f"Seconds: median (min-max) of {args.reps} runs each")
    rows = []
    for n, (t, d) in results.items():
        mt = bu.median([r["running"] for r in t]) / bu.median([r["running"] for r in d])
        mw = bu.median([r["wall"] for r in t]) / bu.median([r["wall"] for r in d])
        rows.append([n, rng(t, "running"), rng(d, "running"), f"{mt:.2f}x",
                     rng(t, "wall"), rng(d, "wall"), f"{mw:.2f}x"])
    bu.print_table(["N", "tony: all running", "DS: all running", "ratio", "tony: wall",
                    "DS: wall", "ratio"], rows)

    print()
    print("Peak memory, MB (VmHWM / max RssAnon; medians over all processes of the kind in all "
          "timed runs)")
    rows = []
    for n, (t, d) in results.items():
        for kind, rs in (("tony coordinator (am)", t), ("tony executor", t),
                         ("DS ApplicationMaster", d)):
            ps = [p for r in rs for p in r["mem"].by_kind(kind)]
            if ps:
                rows.append([n, kind, len(ps),
                             f"{bu.median([p['hwm_kb'] for p in ps]) / 1024:.1f}",
                             f"{bu.median([p['anon_kb'] for p in ps]) / 1024:.1f}"])
            else:
                rows.append([n, kind, 0, "-", "-"])
    bu.print_table(["N", "process", "samples", "VmHWM", "RssAnon"], rows)
    print(f"# total benchmark time {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
