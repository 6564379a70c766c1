"""Shared by the first-step probes: append "<phase> <unix time>" to <stamp-dir>/<rank>.

Shipped with the probes (tony copies the whole src dir to each task)."""
import os
import sys
import time

T_START = time.time()  # imported first thing: close to the interpreter's start


def stamp_dir():
    for i, a in enumerate(sys.argv):
        if a == "--stamp-dir":
            return sys.argv[i + 1]
    raise SystemExit("usage: probe --stamp-dir DIR [...]")


def write(rank, **phases):
    d = stamp_dir()
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, str(rank)), "a") as f:
        f.write("start %.6f\n" % T_START)
        for k, v in phases.items():
            f.write("%s %.6f\n" % (k, v))
