"""The job bench/recovery.py runs under tony and under torchrun: 2 ranks, rank 1 kills itself
(SIGKILL) once, and every process stamps the moments the benchmark measures, as files in
<stamp-dir> holding a unix time:

  failed         written by rank 1 just before it kills itself (the failure moment)
  start-A-R      rank R of attempt A started (this file's first line ran)
  init-A-R       rank R of attempt A passed init_process_group (--mode gang only)

A is 0 before the failure and 1 after it (the attempt is told by whether `failed` exists, so the
probe needs nothing from either launcher but the rank).

--mode gang: PyTorch gloo, as DDP: both ranks init, barrier (the marker), then rank 1 dies while
rank 0 runs all_reduce steps, which fail when its peer is gone. Attempt 1: init, barrier, exit 0.
--mode task: no collective and no torch (a role nobody connects to): each rank writes
ready-R, rank 1 dies once both are there; rank 0 waits for rank 1's replacement, then exits 0.

usage: probe_recovery.py --stamp-dir DIR --mode gang|task
"""
import time

T_START = time.time()  # first thing: close to the interpreter's start

import argparse  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402

WAIT_S = 120  # how long a rank waits for the other before giving up


def stamp(d, name, t):
    tmp = os.path.join(d, f".{name}.{os.getpid()}")
    with open(tmp, "w") as f:
        f.write("%.6f\n" % t)
    os.replace(tmp, os.path.join(d, name))


def wait_for(path):
    deadline = time.time() + WAIT_S
    while not os.path.exists(path):
        if time.time() > deadline:
            sys.exit(f"probe_recovery: {path} did not appear within {WAIT_S} s")
        time.sleep(0.01)


def die(d):
    stamp(d, "failed", time.time())
    os.kill(os.getpid(), signal.SIGKILL)


def gang(d, rank, attempt):
    import torch
    import torch.distributed as dist
    dist.init_process_group("gloo")  # env:// (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE)
    stamp(d, f"init-{attempt}-{rank}", time.time())
    dist.barrier()
    if attempt > 0:
        dist.destroy_process_group()
        return
    if rank == 1:
        die(d)
    t = torch.ones(1)
    deadline = time.time() + WAIT_S
    while time.time() < deadline:  # "training" until the lost peer breaks the collective
        dist.all_reduce(t)
        time.sleep(0.01)
    sys.exit("probe_recovery: rank 1 never failed")


def task(d, rank, attempt):
    if attempt > 0:
        return
    stamp(d, f"ready-{rank}", time.time())
    if rank == 1:
        wait_for(os.path.join(d, "ready-0"))
        die(d)
    wait_for(os.path.join(d, "start-1-1"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stamp-dir", required=True)
    ap.add_argument("--mode", choices=("gang", "task"), required=True)
    a = ap.parse_args()
    rank = int(os.environ.get("RANK", os.environ.get("TASK_INDEX", "-1")))
    if rank not in (0, 1):
        sys.exit("probe_recovery: no RANK or TASK_INDEX 0 or 1 in the environment")
    os.makedirs(a.stamp_dir, exist_ok=True)
    attempt = 1 if os.path.exists(os.path.join(a.stamp_dir, "failed")) else 0
    stamp(a.stamp_dir, f"start-{attempt}-{rank}", T_START)
    (gang if a.mode == "gang" else task)(a.stamp_dir, rank, attempt)


if __name__ == "__main__":
    main()
