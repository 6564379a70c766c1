"""tony.<role>.nproc-per-task: each task is a torchrun "node" of several local processes with
torchrun's numbering, and they form one real gloo process group across tasks."""
import json
import os

from tonytest import SYSTEM_PYTHON, assert_nothing_left, tony_xml, write

SCRIPT = """
import json, os, sys
import torch
import torch.distributed as dist
keys = ["RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR", "MASTER_PORT"]
env = {k: os.environ[k] for k in keys}
dist.init_process_group("gloo", init_method="env://")
t = torch.tensor([float(dist.get_rank())])
dist.all_reduce(t)
env["allreduce"] = t.item()
path = os.path.join(os.environ["TONY_LOG_DIR"], "rank-%s.json" % env["LOCAL_RANK"])
json.dump(env, open(path, "w"))
dist.destroy_process_group()
if os.environ.get("FAIL_LOCAL_RANK") == env["LOCAL_RANK"] and env["GROUP_RANK"] == "1":
    print("local process 1 of worker 1 gives up", file=sys.stderr)
    raise SystemExit(5)
"""


def run(tony, tmp_path, *extra):
    src = tmp_path / "src"
    write(str(src / "ranks.py"), SCRIPT)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "2",
        "tony.worker.nproc-per-task": "2", "tony.worker.memory": "512m",
        "tony.execution.envs": "OMP_NUM_THREADS=1"})
    return tony.run("submit", "--executes", "ranks.py", "--python_binary_path", SYSTEM_PYTHON,
                    "--src_dir", str(src), "--conf_file", conf, *extra, timeout=300)


def test_two_tasks_of_two_processes_form_one_world_of_four(tony, tmp_path):
    r = run(tony, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    seen = []
    for index in (0, 1):
        log_dir = tony.task("worker", index)["log_dir"]
        for local in (0, 1):
            env = json.load(open(os.path.join(log_dir, f"rank-{local}.json")))
            assert env["RANK"] == str(index * 2 + local)
            assert env["WORLD_SIZE"] == "4"
            assert env["LOCAL_RANK"] == str(local) and env["LOCAL_WORLD_SIZE"] == "2"
            assert env["GROUP_RANK"] == str(index)
            assert env["allreduce"] == 0 + 1 + 2 + 3
            seen.append(int(env["RANK"]))
        # Local rank 0 writes stdout/stderr as a one-process task does; the others .1, .2, ...
        assert os.path.exists(os.path.join(log_dir, "stderr.1"))
    assert sorted(seen) == [0, 1, 2, 3]
    assert_nothing_left(tony.home)


def test_a_failing_local_process_fails_its_task(tony, tmp_path):
    r = run(tony, tmp_path, "--shell_env", "FAIL_LOCAL_RANK=1")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "task worker:1 failed: exit 5" in r.stdout
    # The diagnostics quote the failing process's own stderr file.
    assert "stderr.1" in r.stdout and "local process 1 of worker 1 gives up" in r.stdout
    assert_nothing_left(tony.home)
