"""The cost of security on YARN: submit-to-all-running and wall time of N trivial tasks with
`tony submit --engine yarn` on the open minicluster and on the Kerberized one (a throwaway MIT
KDC, tests/lib/secure_cluster.py) at `hadoop.rpc.protection` authentication and privacy. The peer
is tony itself on the open cluster, in the same run: the ratio is what Kerberos (a login, RM and
HDFS delegation tokens, SASL GSSAPI and DIGEST-MD5 on every Hadoop RPC connection, SPNEGO for
WebHDFS, and at privacy the wrapping of every call) adds to a job's start. The control plane is
TLS in all three (it is on every YARN job). DistributedShell is not run secure here: its Client
needs a keytab login through Hadoop's UserGroupInformation, which the minicluster harness does
not set up for it.

Each task runs `date +%s.%N >> <stamps>` (bench/yarn_startup.py's method): "all running" is the
latest stamp minus the time just before `tony submit` started. One cluster at a time, each with 2
NodeManagers; the tony bundle is built once and found in every run's $TONY_HOME/cache.

usage: /usr/bin/python3 bench/secure_startup.py [--tony PATH] [--tasks 2,8] [--reps 3]
                                                [--modes open,authentication,privacy]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchutil as bu  # noqa: E402
import yarn_startup as ys  # noqa: E402

sys.path.insert(0, os.path.join(bu.REPO, "tests", "lib"))
import minicluster  # noqa: E402
import secure_cluster  # noqa: E402

MODES = ("open", "authentication", "privacy")


def cluster(mode):
    """A context manager yielding (conf_dir, client env) for `mode`."""
    import contextlib

    @contextlib.contextmanager
    def run():
        if mode == "open":
            with minicluster.running_minicluster(2) as conf_dir:
                yield conf_dir, {}
        else:
            with secure_cluster.running_secure_minicluster(mode) as sc:
                yield sc.conf_dir, sc.env()
    return run()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tony")
    ap.add_argument("--tasks", default="2,8")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--modes", default=",".join(MODES))
    args = ap.parse_args()
    tony = bu.tony_binary(args.tony)
    ns = [int(x) for x in args.tasks.split(",")]
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            raise SystemExit(f"--modes: unknown mode {m!r} (known: {', '.join(MODES)})")
    print(f"# tony --engine yarn on the open vs the Kerberized minicluster (2 NMs); repo HEAD "
          f"{bu.git_head()} at run time; binary {tony}")
    print(f"# machine: {bu.machine_line()}")
    started = time.monotonic()
    bundle_cache, bundle_s = ys.warm_bundle(tony)
    print(f"# tony bundle built once in {bundle_s:.2f} s", flush=True)
    results = {}
    for mode in modes:
        t0 = time.monotonic()
        with cluster(mode) as (conf_dir, env):
            print(f"# {mode}: cluster up after {time.monotonic() - t0:.0f} s", flush=True)
            for n in ns:
                ys.run_tony(tony, conf_dir, n, bundle_cache, env)  # warm-up, not counted
                rs = [ys.run_tony(tony, conf_dir, n, bundle_cache, env) for _ in range(args.reps)]
                results[(mode, n)] = rs
                print(f"#   {mode} N={n}: " + ", ".join(
                    f"running {r['running']:.2f} wall {r['wall']:.2f}" for r in rs), flush=True)

    def med(mode, n, k):
        return bu.median([r[k] for r in results[(mode, n)]])

    def rng(mode, n, k):
        xs = [r[k] for r in results[(mode, n)]]
        return f"{bu.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"

    print()
    print(f"Seconds: median (min-max) of {args.reps} runs each; ratio = this mode's median / the "
          f"open cluster's, from the same run")
    rows = []
    for n in ns:
        for mode in modes:
            base = "open" if "open" in modes else modes[0]
            rows.append([n, mode, rng(mode, n, "running"),
                         f"{med(mode, n, 'running') / med(base, n, 'running'):.2f}x",
                         rng(mode, n, "wall"),
                         f"{med(mode, n, 'wall') / med(base, n, 'wall'):.2f}x"])
    bu.print_table(["N", "cluster", "all running", "/open", "wall", "/open"], rows)
    print(f"# load average at end: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    print(f"# total benchmark time {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
