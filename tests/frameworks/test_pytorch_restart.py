"""A real 2-rank PyTorch DDP training through a gang restart (README "Restarts"): rank 1 is killed
with SIGKILL in the middle of training; tony stops rank 0, starts both again as attempt 1 with
TORCHELASTIC_RESTART_COUNT=1, they resume from the checkpoint rank 0 wrote, and the training ends
where an uninterrupted one would, the replicas equal."""
import os
import re

from fwutil import output
from tonytest import SYSTEM_PYTHON, assert_nothing_left, tony_xml, write

# Data-parallel SGD on y = 3x with DDP (gloo). Rank 0 checkpoints every step (atomically); the
# script resumes from it. Rank 1 of the first attempt kills itself at step KILL_AT.
SCRIPT = r'''
import os, signal
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
restart = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
ckpt = os.path.join(os.environ["CKPT_DIR"], "ckpt.pt")
dist.init_process_group("gloo", rank=rank, world_size=world)
torch.manual_seed(0)
model = torch.nn.Linear(1, 1, bias=False)
with torch.no_grad():
    model.weight.zero_()
step = 0
if os.path.exists(ckpt):
    state = torch.load(ckpt)
    model.load_state_dict(state["model"])
    step = state["step"]
print(f"rank {rank} attempt {restart} starts at step {step}", flush=True)
ddp = DDP(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
x = torch.arange(1.0, 9.0).unsqueeze(1)[rank::world]
while step < 40:
    if restart == 0 and rank == 1 and step == int(os.environ["KILL_AT"]):
        os.kill(os.getpid(), signal.SIGKILL)
    loss = ((ddp(x) - 3 * x) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    step += 1
    dist.barrier()
    if rank == 0:
        torch.save({"model": model.state_dict(), "step": step}, ckpt + ".tmp")
        os.replace(ckpt + ".tmp", ckpt)
    dist.barrier()
print(f"rank {rank} done at step {step}: w {model.weight.item():.6f}", flush=True)
'''


def run(tony, tmp_path, name, kill_at, props):
    src = tmp_path / name / "src"
    ckpt = tmp_path / name / "ckpt"
    ckpt.mkdir(parents=True)
    write(str(src / "train.py"), SCRIPT)
    conf = tony_xml(str(tmp_path / name / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "2",
        "tony.worker.memory": "1g", **props})
    r = tony.run("submit", "--executes", "train.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", conf,
                 "--shell_env", f"CKPT_DIR={ckpt}", "--shell_env", f"KILL_AT={kill_at}",
                 timeout=300)
    return r


def final_weights(tony):
    return [float(re.search(r"done at step 40: w (-?[\d.]+)", output(tony, "worker", rank))
                  .group(1)) for rank in (0, 1)]


def test_ddp_training_resumes_from_its_checkpoint_through_a_gang_restart(tony, tmp_path):
    r = run(tony, tmp_path, "restarted", kill_at=15,
            props={"tony.worker.restart-policy": "exit-code",
                   "tony.worker.restart-backoff-ms": "100"})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    status = tony.status()
    assert status["final_status"] == "SUCCEEDED", status["message"]
    for rank in (0, 1):
        t = tony.task("worker", rank)
        assert t["attempt"] == 1, t
        text = output(tony, "worker", rank)
        # The new attempt resumed where the checkpoint was (step 15: rank 1 died before step 16).
        assert f"rank {rank} attempt 1 starts at step 15" in text, text
    w1 = tony.task("worker", 1)
    assert w1["past_attempts"][0]["signal"] == 9, w1
    assert "restart 1 of 3" in w1["past_attempts"][0]["restart"]
    restarted = final_weights(tony)
    assert restarted[0] == restarted[1], restarted  # DDP kept the replicas equal
    assert abs(restarted[0] - 3.0) < 0.05, restarted

    # The same training with no failure ends at the same weights: nothing was lost or redone.
    plain = run(tony, tmp_path, "plain", kill_at=-1, props={})
    assert plain.returncode == 0, plain.stdout[-3000:] + plain.stderr[-3000:]
    assert final_weights(tony) == restarted, (final_weights(tony), restarted)
    assert_nothing_left(tony.home)
