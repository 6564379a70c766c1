"""Wall time of the example 2-worker PyTorch DDP training (examples/pytorch-ddp) under
`tony submit` on the local engine against the same train.py started by hand as two ranks with the
variables torchrun would set (the "bare torchrun-equivalent" peer; Debian's torchrun does not run
on Python 3.11, so the ranks are started directly, which is what torchrun does minus its agent).

Per run: wall time from just before the launch to the moment everything has exited (for tony:
`tony submit` exited with the job's result; for bare: both ranks exited), and rank 0's own
train_seconds (the training loop alone, printed by train.py), so that the part of the difference
that is outside the training loop is visible. That part includes importing torch (1-2 s here)
and init_process_group, which on this torch (1.13) stalls for about 1 s whenever rank 1 tries to
reach rank 0's TCPStore before rank 0 listens (its connect retry interval; checked by starting
rank 1 0.4 s before rank 0). With both ranks started together that is a coin toss on either
launcher, so the wall times are bimodal: use several runs, and read the fastest-run ratio too.
(Real torchrun avoids the race: its agent hosts the store before it starts the workers.) Runs alternate tony/bare; one untimed bare run
first warms the page cache (importing torch from a cold cache takes seconds).

usage: /usr/bin/python3 bench/ddp_overhead.py [--tony build-bench/cli/tony] [--reps 8]
"""
import argparse
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchutil as bu  # noqa: E402

EXAMPLE = os.path.join(bu.REPO, "examples", "pytorch-ddp")
SRC = os.path.join(EXAMPLE, "src")
CONF = os.path.join(EXAMPLE, "tony.xml")
FINAL = re.compile(r"rank 0/2: final test loss (\S+) accuracy (\S+) replicas_in_sync (\S+) "
                   r"train_seconds (\S+)")


def parse_rank0(text, where):
    m = FINAL.search(text)
    if not m:
        raise RuntimeError(f"no final line from rank 0 in {where}:\n{text[-2000:]}")
    if m.group(3) != "True":
        raise RuntimeError(f"replicas diverged ({where})")
    return {"accuracy": float(m.group(2)), "train_seconds": float(m.group(4))}


def tony_args(tony, epochs):
    a = [tony, "submit", "--executes", "train.py", "--src_dir", SRC,
         "--python_binary_path", bu.SYSTEM_PYTHON, "--conf_file", CONF]
    if epochs:
        a += ["--task_params", f"--epochs {epochs}"]
    return a


def run_tony(tony, epochs):
    home = bu.TonyHome()
    try:
        out = open(os.path.join(home.path, "submit.out"), "w+")
        m0 = time.monotonic()
        rc = subprocess.run(tony_args(tony, epochs), env=home.env, stdout=out,
                            stderr=subprocess.STDOUT).returncode
        wall = time.monotonic() - m0
        if rc != 0:
            out.seek(0)
            raise RuntimeError(f"tony submit exited {rc}:\n{out.read()}")
        stdout = os.path.join(home.job_dir(), "tasks", "worker-0", "attempt-0", "stdout")
        with open(stdout) as f:
            r = parse_rank0(f.read(), stdout)
        r["wall"] = wall
        return r
    finally:
        home.cleanup()


def bare_env(rank, port):
    return dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                WORLD_SIZE="2", LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE="2", GROUP_RANK="0",
                OMP_NUM_THREADS="1")


def run_bare(epochs):
    argv = [bu.SYSTEM_PYTHON, "train.py"] + (["--epochs", str(epochs)] if epochs else [])
    port = bu.free_port()
    m0 = time.monotonic()
    # Each rank in its own session, as tony's local engine starts each task: with the kernel's
    # autogroup scheduling (on here) a session is a CPU-sharing unit, so ranks that share this
    # script's session would get less CPU than tony's on a loaded machine.
    procs = [subprocess.Popen(argv, cwd=SRC, env=bare_env(rank, port), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, start_new_session=True)
             for rank in range(2)]
    outs = [p.communicate()[0] for p in procs]
    wall = time.monotonic() - m0
    for rank, p in enumerate(procs):
        if p.returncode != 0:
            raise RuntimeError(f"bare rank {rank} exited {p.returncode}:\n{outs[rank][-2000:]}")
    r = parse_rank0(outs[0], "bare rank 0")
    r["wall"] = wall
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tony", help="tony binary (default: build-bench/cli/tony or $TONY_BIN)")
    ap.add_argument("--reps", type=int, default=8, help="timed runs per launcher")
    ap.add_argument("--epochs", type=int, default=0,
                    help="passed to train.py (0: the script's default, 30)")
    args = ap.parse_args()
    tony = bu.tony_binary(args.tony)

    print(f"# tony vs bare ranks, examples/pytorch-ddp; repo HEAD {bu.git_head()} at run time; binary {tony}")
    print(f"# machine: {bu.machine_line()}")
    print(f"# tony: {' '.join(tony_args('tony', args.epochs))}")
    print(f"# bare: 2x (each in its own session) MASTER_ADDR=127.0.0.1 MASTER_PORT=<free> RANK=i WORLD_SIZE=2 LOCAL_RANK=i "
          f"LOCAL_WORLD_SIZE=2 OMP_NUM_THREADS=1 {bu.SYSTEM_PYTHON} train.py"
          f"{' --epochs %d' % args.epochs if args.epochs else ''}  (cwd {SRC})")
    started = time.monotonic()
    run_bare(args.epochs)  # warm-up, not counted
    t, b = [], []
    for rep in range(args.reps):
        if rep % 2 == 0:
            t.append(run_tony(tony, args.epochs))
            b.append(run_bare(args.epochs))
        else:
            b.append(run_bare(args.epochs))
            t.append(run_tony(tony, args.epochs))
        print(f"#   rep {rep}: tony wall {t[-1]['wall']:.2f} s (train {t[-1]['train_seconds']} s, "
              f"accuracy {t[-1]['accuracy']}) | bare wall {b[-1]['wall']:.2f} s "
              f"(train {b[-1]['train_seconds']} s, accuracy {b[-1]['accuracy']})", flush=True)

    def med(rs, k):
        return bu.median([r[k] for r in rs])

    def rng(rs, k):
        xs = [r[k] for r in rs]
        return f"{bu.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"

    print()
    print(f"Seconds: median (min-max) of {args.reps} runs each")
    out_t = [r["wall"] - r["train_seconds"] for r in t]
    out_b = [r["wall"] - r["train_seconds"] for r in b]
    bu.print_table(
        ["launcher", "wall", "rank 0 train loop", "wall - train loop", "final accuracy"],
        [["tony submit", rng(t, "wall"), rng(t, "train_seconds"),
          f"{bu.median(out_t):.2f}", f"{med(t, 'accuracy'):.4f}"],
         ["bare ranks", rng(b, "wall"), rng(b, "train_seconds"),
          f"{bu.median(out_b):.2f}", f"{med(b, 'accuracy'):.4f}"]])
    print()
    tw, bw = [r["wall"] for r in t], [r["wall"] for r in b]
    print(f"ratio tony/bare, median wall: {bu.median(tw) / bu.median(bw):.2f}x "
          f"(difference {bu.median(tw) - bu.median(bw):+.2f} s); "
          f"fastest run: {min(tw) / min(bw):.2f}x ({min(tw) - min(bw):+.2f} s)")
    print(f"# total benchmark time {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
