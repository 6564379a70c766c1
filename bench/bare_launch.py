"""The floor that local_startup.py compares tony against: a plain launcher process that starts N
copies of a shell command with subprocess.Popen and waits for them all, nothing else (no RPC, no
registration, no config). Each copy gets its own TONY_LOG_DIR (<log_root>/<i>), as a tony task
does, so the same command line works under both.

usage: python3 -I -S bare_launch.py N LOG_ROOT COMMAND
Exits 0 if every copy exited 0."""
import os
import subprocess
import sys


def main():
    n, log_root, command = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    procs = []
    for i in range(n):
        log_dir = os.path.join(log_root, str(i))
        os.makedirs(log_dir, exist_ok=True)
        env = dict(os.environ, TONY_LOG_DIR=log_dir)
        # Its own session, as tony's local engine gives each task (see ddp_overhead.py: with
        # autogroup scheduling a session is a CPU-sharing unit).
        procs.append(subprocess.Popen(["bash", "-c", command], env=env, start_new_session=True))
    failed = sum(1 for p in procs if p.wait() != 0)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
