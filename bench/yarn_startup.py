"""Startup and wall time of N trivial tasks on YARN (the test minicluster): `tony submit --engine
yarn` against YARN's own DistributedShell (Client + ApplicationMaster) and against LinkedIn TonY's
own released Java jars ("tonyjava": tony-core 0.4.7 from Maven Central, TonyClient +
ApplicationMaster + one TaskExecutor JVM per task).

Each task's command is `date +%s.%N >> <stamps>` (one line per task, appended; all NodeManagers of
the minicluster are on this machine), so "all N running" is the latest stamp minus the wall-clock
time taken just before the client was started. Wall time is measured around the client process
(tony submit, DistributedShell's Client, which polls the RM once a second and so ends on a 1 s
tick, or TonY's TonyClient). Peak memory: a thread walks /proc every 50 ms and keeps the last VmHWM
of every tony coordinator (`tony am`)/executor process, of DistributedShell's ApplicationMaster JVM
and of TonY's ApplicationMaster and TaskExecutor JVMs (these run under the NodeManagers, not under
the client).

The minicluster: tests/minicluster/start.sh <confdir> 2 (MiniDFS + MiniYARN, 2 NodeManagers), run
here and stopped (stdin closed) at the end, unless --conf-dir names one already running.

DistributedShell: Maven Central has no hadoop-yarn-applications-distributedshell 3.5.0 (the
minicluster's version; checked 2026-12-02: 404, newest listed 3.4.2), so 3.4.2 is used against the
3.5.0 cluster, with commons-cli 1.9.0 and jersey-client/-core 1.19.4 (which its Client needs and
the shaded hadoop-client jars do not carry) in front of the minicluster's own classpath; its
Client puts its own classpath into the AM's when yarn.is.minicluster is set. Get them with:
  mkdir -p /tmp/dshell && for a in \\
    org.apache.hadoop:hadoop-yarn-applications-distributedshell:3.4.2 \\
    commons-cli:commons-cli:1.9.0 \\
    com.sun.jersey:jersey-client:1.19.4 \\
    com.sun.jersey:jersey-core:1.19.4; do
    mvn -q dependency:copy -Dartifact=$a -DoutputDirectory=/tmp/dshell; done

TonY (tonyjava): tony-core 0.4.7 (the newest on Maven Central; July 2021) and the Hadoop 2.10.0
client jars it depends on (unshaded, protobuf-java 2.5.0), resolved by bench/tony-java/pom.xml
into bench/tony-java/target/classpath.txt (built here with Maven if missing). TonyClient runs on
Java 17 against the 3.5.0 cluster; tony-core's jar is shipped to the containers as a
`tony.containers.resources` file (what TonY's ClusterSubmitter does with its own jar), the other
jars are named by `tony.application.hadoop.classpath` (the cluster's installed Hadoop on a real
cluster; local paths here, all NodeManagers being on this machine).

usage: /usr/bin/python3 bench/yarn_startup.py [--tony PATH] [--tasks 2,8] [--reps 3]
                                              [--peers ds,tonyjava] [--dshell-dir /tmp/dshell]
                                              [--conf-dir DIR]
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
TONYJAVA_DIR = os.path.join(bu.REPO, "bench", "tony-java")
TONYJAVA_VERSION = "0.4.7"


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
    if "com.linkedin.tony.ApplicationMaster" in argv:
        return "TonY ApplicationMaster (Java)"
    if "com.linkedin.tony.TaskExecutor" in argv:
        return "TonY TaskExecutor (Java)"
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


def warm_bundle(tony):
    """Builds the tony bundle (client/bundle.h) once into a shared cache, as a user's first submit
    does; every timed run then finds it there, as every later submit does. Returns the cache dir
    and the seconds the build took (reported apart: a first-submit cost)."""
    home = tempfile.mkdtemp(prefix="tony-bench-bundle-")
    t0 = time.monotonic()
    subprocess.run([tony, "bundle"], env=dict(os.environ, TONY_HOME=home), check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(home, "cache"), time.monotonic() - t0


def run_tony(tony, conf_dir, n, bundle_cache=None, env=None):
    """`env`: more environment for the client (a Kerberized cluster's KRB5_CONFIG, KRB5CCNAME)."""
    home = bu.TonyHome()
    stamps = os.path.join(home.path, "stamps")
    if bundle_cache:
        # A copy, not a symlink: tony refuses a cache dir that is a link (one another user could
        # have planted); the copy keeps its 0700 mode and the bundle's recorded hash.
        shutil.copytree(bundle_cache, os.path.join(home.path, "cache"), symlinks=True)
    try:
        extra = {k: v for k, v in (env or {}).items() if os.environ.get(k) != v}
        env = dict(home.env)
        env.update(extra)
        env["HADOOP_CONF_DIR"] = conf_dir
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


def tonyjava_classpath():
    """tony-core's jar and the other jars of its class path (bench/tony-java/pom.xml)."""
    out = os.path.join(TONYJAVA_DIR, "target", "classpath.txt")
    pom = os.path.join(TONYJAVA_DIR, "pom.xml")
    if not os.path.exists(out) or os.path.getmtime(pom) > os.path.getmtime(out):
        subprocess.run(["mvn", "-B", "-q", "-f", pom, "dependency:build-classpath",
                        "-Dmdep.outputFile=target/classpath.txt"], check=True)
    with open(out) as f:
        jars = f.read().strip().split(":")
    core = [j for j in jars if os.path.basename(j) == f"tony-core-{TONYJAVA_VERSION}.jar"]
    if len(core) != 1:
        raise RuntimeError(f"no tony-core-{TONYJAVA_VERSION}.jar in {out}")
    return core[0], [j for j in jars if j != core[0]]


def tonyjava_props(n, core, deps):
    return {"tony.application.framework": "tensorflow", "tony.worker.instances": n,
            "tony.worker.vcores": 1, "tony.worker.memory": "256m", "tony.ps.instances": 0,
            "tony.am.memory": "256m", "tony.task.executor.jvm.opts": "-Xmx200m",
            "tony.application.security.enabled": "false",
            "tony.containers.resources": core,
            "tony.application.hadoop.classpath": ",".join(deps)}


def tonyjava_args(conf_dir, core, deps, stamps, conf_file):
    return ["java", "-Xmx256m", "-cp", ":".join([conf_dir, core] + deps),
            "com.linkedin.tony.TonyClient", "--executes", f"date +%s.%N >> {stamps}",
            "--conf_file", conf_file]


def run_tonyjava(conf_dir, n):
    core, deps = tonyjava_classpath()
    d = tempfile.mkdtemp(prefix="tony-bench-tonyjava-")
    stamps = os.path.join(d, "stamps")
    try:
        conf_file = bu.write_tony_xml(os.path.join(d, "tony.xml"), tonyjava_props(n, core, deps))
        out = open(os.path.join(d, "client.out"), "w+")
        env = dict(os.environ, HADOOP_CONF_DIR=conf_dir)
        with SystemSampler() as s:
            t0, m0 = time.time(), time.monotonic()
            # cwd: TonyClient writes <appid>-tony-final.xml into its working directory
            rc = subprocess.run(tonyjava_args(conf_dir, core, deps, stamps, conf_file), cwd=d,
                                env=env, stdout=out, stderr=subprocess.STDOUT).returncode
            wall = time.monotonic() - m0
        out.seek(0)
        text = out.read()
        # TonyClient exits 0 only when the application succeeded (-1 otherwise)
        if rc != 0 or "Application completed successfully" not in text:
            raise RuntimeError(f"TonyClient exited {rc}:\n{text[-3000:]}")
        return {"running": read_stamps(stamps, n, t0), "wall": wall, "mem": s}
    finally:
        shutil.rmtree(d, ignore_errors=True)


PEERS = {"ds": "DS", "tonyjava": "TonY (Java)"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tony")
    ap.add_argument("--tasks", default="2,8")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--peers", default="ds,tonyjava",
                    help="comma-separated subset of: ds (DistributedShell), tonyjava (TonY 0.4.7)")
    ap.add_argument("--dshell-dir", default="/tmp/dshell")
    ap.add_argument("--conf-dir", help="a running minicluster's conf dir (default: start one)")
    args = ap.parse_args()
    tony = bu.tony_binary(args.tony)
    ns = [int(x) for x in args.tasks.split(",")]
    peers = [p for p in args.peers.split(",") if p]
    for p in peers:
        if p not in PEERS:
            raise SystemExit(f"--peers: unknown peer {p!r} (known: {', '.join(PEERS)})")
    if "tonyjava" in peers:
        core, deps = tonyjava_classpath()

    print(f"# tony --engine yarn vs {' and '.join(PEERS[p] for p in peers)} on the minicluster "
          f"(2 NMs); repo HEAD {bu.git_head()} at run time; binary {tony}")
    print(f"# machine: {bu.machine_line()}")
    print(f"# tony: HADOOP_CONF_DIR=<conf> tony submit --engine yarn --executes "
          f"'date +%s.%N >> <stamps>' --conf_file tony.xml (generic, worker.instances=N, "
          f"vcores 1, memory 256m)")
    if "ds" in peers:
        print(f"# DS:   HADOOP_CONF_DIR=<conf> "
              f"{' '.join(ds_args(args.dshell_dir, '<conf>', 'N', '<stamps>')[:3])} "
              f"-cp <jars> {DS_PKG}.Client -jar <dshell jar> -shell_script <stamps>.sh "
              f"(holding 'date +%s.%N >> <stamps>') "
              f"-num_containers N -container_memory 256 -master_memory 256")
    if "tonyjava" in peers:
        a = tonyjava_args("<conf>", "<tony-core jar>", ["<deps>"], "<stamps>", "tony.xml")
        props = tonyjava_props("N", os.path.basename(core), ["<deps>"])
        print(f"# TonY: HADOOP_CONF_DIR=<conf> {' '.join(a[:3])} <conf>:<tony-core jar>:<deps> "
              f"{a[4]} --executes 'date +%s.%N >> <stamps>' --conf_file tony.xml "
              f"({', '.join(f'{k}={v}' for k, v in props.items())}; <deps>: the "
              f"{len(deps)} other jars of bench/tony-java's class path)")
    started = time.monotonic()
    mc, conf_dir = None, args.conf_dir
    if not conf_dir:
        conf_dir = tempfile.mkdtemp(prefix="tony-bench-mc-")
        mc = start_minicluster(conf_dir)
        print(f"# minicluster up after {time.monotonic() - started:.0f} s", flush=True)
    bundle_cache, bundle_s = warm_bundle(tony)
    print(f"# tony bundle built once in {bundle_s:.2f} s (a first submit's extra cost; every timed "
          f"tony run finds it in its $TONY_HOME/cache, as every later submit does)", flush=True)
    runners = {"tony": lambda n: run_tony(tony, conf_dir, n, bundle_cache),
               "ds": lambda n: run_ds(args.dshell_dir, conf_dir, n),
               "tonyjava": lambda n: run_tonyjava(conf_dir, n)}
    systems = ["tony"] + peers
    names = dict(PEERS, tony="tony")
    results = {}
    try:
        for n in ns:
            for k in systems:  # warm-up of each side, not counted
                runners[k](n)
            res = {k: [] for k in systems}
            for rep in range(args.reps):
                # a different system first on each repetition, so that a change in background
                # load does not always hit the same one
                order = systems[rep % len(systems):] + systems[:rep % len(systems)]
                for k in order:
                    res[k].append(runners[k](n))
                print(f"#   N={n} rep {rep} (order {','.join(order)}): " + " | ".join(
                    f"{names[k]} running {res[k][-1]['running']:.2f} wall {res[k][-1]['wall']:.2f}"
                    for k in systems), flush=True)
            results[n] = res
    finally:
        if mc:
            stop_minicluster(mc)
            shutil.rmtree(conf_dir, ignore_errors=True)

    def med(rs, k):
        return bu.median([r[k] for r in rs])

    def rng(rs, k):
        xs = [r[k] for r in rs]
        return f"{bu.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"

    print()
    print(f"Seconds: median (min-max) of {args.reps} runs each; ratio = tony's median / this "
          f"system's median, from the same run")
    rows = []
    for n, res in results.items():
        t = res["tony"]
        for k in systems:
            rows.append([n, names[k], rng(res[k], "running"),
                         f"{med(t, 'running') / med(res[k], 'running'):.2f}x",
                         rng(res[k], "wall"), f"{med(t, 'wall') / med(res[k], 'wall'):.2f}x"])
    bu.print_table(["N", "system", "all running", "tony/this", "wall", "tony/this"], rows)

    print()
    print("Peak memory, MB (VmHWM / max RssAnon; medians over all processes of the kind in all "
          "timed runs)")
    kinds = [("tony", "tony coordinator (am)"), ("tony", "tony executor"),
             ("ds", "DS ApplicationMaster"), ("tonyjava", "TonY ApplicationMaster (Java)"),
             ("tonyjava", "TonY TaskExecutor (Java)")]
    rows = []
    for n, res in results.items():
        for k, kind in kinds:
            if k not in res:
                continue
            ps = [p for r in res[k] for p in r["mem"].by_kind(kind)]
            if ps:
                rows.append([n, kind, len(ps),
                             f"{bu.median([p['hwm_kb'] for p in ps]) / 1024:.1f}",
                             f"{bu.median([p['anon_kb'] for p in ps]) / 1024:.1f}"])
            else:
                rows.append([n, kind, 0, "-", "-"])
    bu.print_table(["N", "process", "samples", "VmHWM", "RssAnon"], rows)
    print(f"# load average at end: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    print(f"# total benchmark time {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
