"""Stalls in a real PyTorch job (README "Stalls"): rank 1 of a 2-worker gloo DDP world hangs before
a collective, so rank 0 blocks inside all_reduce. With tony.worker.on-stall=warn both become
STALLED, and the stacks tony captured say where each waits: rank 0 in torch's all_reduce, called
from the user's function, rank 1 in its own function. `tony kill` then ends it all."""
import os

from tonytest import SYSTEM_PYTHON, assert_nothing_left, eventually, tony_xml, write

SCRIPT = """
import time
import torch
import torch.distributed as dist


def sync_gradients(t):
    dist.all_reduce(t)


def wait_for_data():
    while True:
        time.sleep(3600)


dist.init_process_group("gloo", init_method="env://")
print("rank", dist.get_rank(), "joined")
if dist.get_rank() == 1:
    wait_for_data()
sync_gradients(torch.ones(4))
"""


def stall_note(tony, index):
    try:
        t = tony.task("worker", index)
    except (OSError, ValueError, KeyError, IndexError):
        return None
    return t.get("stall") if t["state"] == "STALLED" else None


def in_all_reduce(note):
    return note if note and " in all_reduce at distributed_c10d.py:" in note.splitlines()[0] \
        else None


def test_stacks_show_rank_0_inside_all_reduce_waiting_for_a_hung_rank_1(tony, tmp_path):
    src = tmp_path / "src"
    write(str(src / "ddp.py"), SCRIPT)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "2",
        "tony.worker.memory": "512m", "tony.execution.envs": "OMP_NUM_THREADS=1",
        "tony.worker.stall-timeout-ms": "3000", "tony.worker.on-stall": "warn"})
    proc = tony.start("submit", "--executes", "ddp.py", "--python_binary_path", SYSTEM_PYTHON,
                      "--src_dir", str(src), "--conf_file", conf)
    try:
        # On a loaded machine rank 0 may first stall in the rendezvous, waiting for rank 1 to
        # import torch; it is RUNNING again once both join, and its next stall is captured again
        # (README "Stalls", on-stall warn): wait for that one.
        rank0 = eventually(lambda: in_all_reduce(stall_note(tony, 0)), timeout=120,
                           what="worker:0 STALLED inside all_reduce")
        rank1 = eventually(lambda: stall_note(tony, 1), timeout=60, what="worker:1 STALLED")
        assert " in all_reduce at distributed_c10d.py:" in rank0.splitlines()[0], rank0
        assert "in sync_gradients" in rank0, rank0
        assert " in wait_for_data at ddp.py:" in rank1.splitlines()[0], rank1
        killed = tony.run("kill", tony.jobs()[-1])
        assert killed.returncode == 0, killed.stdout + killed.stderr
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, out + err
    assert "killed by user" in out, out
    assert_nothing_left(tony.home)
