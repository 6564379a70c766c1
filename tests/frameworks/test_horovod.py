"""Horovod, real: horovod 0.28.1 built from its sdist with PyTorch and gloo against Debian's
python3-torch (scripts/setup-frameworks.sh). The workers get horovodrun's gloo variables from
tony's horovod runtime; the `driver` task tony adds to the job (as TonY does) serves horovod's own
rendezvous server (its HTTP key-value store, with horovod's own slot plan) on its reserved port,
from the script tony ships; the example's own src/ has no driver. The workers all-reduce and train with
hvd.DistributedOptimizer. About 3 s per job on the dev machine."""
import os
import re

from fwutil import HOROVOD_PYTHON, example, floats, output, require, submit
from tonytest import assert_nothing_left


def test_two_workers_rendezvous_at_the_driver_all_reduce_and_train(tony):
    require(HOROVOD_PYTHON, "horovod.torch")
    status = submit(tony, example("horovod"), "train.py", HOROVOD_PYTHON)
    assert status["final_status"] == "SUCCEEDED"
    driver = tony.task("driver", 0)
    assert f"tony horovod driver: rendezvous on port {driver['port']} for 127.0.0.1:2" in output(
        tony, "driver", 0)
    # The driver is untracked: tony stopped it once both workers succeeded.
    assert driver["state"] == "STOPPED" and "stopped" in driver["diagnostics"], driver
    for index in (0, 1):
        text = output(tony, "worker", index)
        # One host: horovod's plan gives worker i rank i, local rank i, cross rank 0.
        assert f"rank {index}/2: local_rank {index}/2 cross_rank 0/1" in text, text
        assert f"rank {index}/2: allreduce [3.0, 6.0, 9.0, 12.0]" in text, text
        trained = floats(rf"rank {index}/2: loss first ([\d.]+) last ([\d.]+) "
                         r"max_error ([\d.]+) in_sync True", text)
        assert trained, text
        first, last, max_error = trained[0]
        assert last < first / 5 and max_error < 0.05, text
    assert_nothing_left(tony.home)


# TonY's driver debug mode (tony.horovod.driver.mode.debug, tony.driver.command): the job's own
# driver, written here as TonY's horovod_debug_driver.py works, starts horovod's rendezvous server
# on a port it chooses (not the one tony reserved for the task) and writes
# DRIVER_OUTPUT_PATH/<port>____HOROVOD_RENDEZVOUS_SERVER____ with its slot plan, its numbers as
# strings as TonY's driver writes them.
DEBUG_DRIVER = r'''
import json, os, time
from horovod.runner.common.util.hosts import get_host_assignments, parse_hosts
from horovod.runner.http.http_server import RendezvousServer

hosts = parse_hosts(os.environ["CLUSTER_WORKER_LIST"])
plan = get_host_assignments(hosts, sum(h.slots for h in hosts))
server = RendezvousServer(verbose=1)
port = server.start()
server.init(plan)
slots = [{"hostname": s.hostname, "rank": str(s.rank), "localRank": str(s.local_rank),
          "crossRank": str(s.cross_rank), "size": str(s.size), "localSize": str(s.local_size),
          "crossSize": str(s.cross_size)} for s in plan]
path = os.path.join(os.environ["DRIVER_OUTPUT_PATH"], "%d____HOROVOD_RENDEZVOUS_SERVER____" % port)
with open(path, "w") as f:
    f.write(json.dumps(slots))
print("debug driver: rendezvous on port %d" % port, flush=True)
while True:
    time.sleep(10)
'''


def debug_src(tmp_path, driver_code):
    src = tmp_path / "src"
    src.mkdir()
    with open(os.path.join(example("horovod"), "src", "train.py")) as f:
        (src / "train.py").write_text(f.read())
    (src / "my_driver.py").write_text(driver_code)
    return src


def test_the_debug_mode_runs_the_jobs_own_driver_and_the_workers_use_its_port(tony, tmp_path):
    require(HOROVOD_PYTHON, "horovod.torch")
    src = debug_src(tmp_path, DEBUG_DRIVER)
    r = tony.run("submit", "--executes", "train.py", "--python_binary_path", HOROVOD_PYTHON,
                 "--src_dir", str(src), "--conf_file", os.path.join(example("horovod"), "tony.xml"),
                 "--conf", "tony.horovod.driver.mode.debug=true",
                 "--conf", f"tony.driver.command={HOROVOD_PYTHON} my_driver.py", timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "not supported" not in r.stderr, r.stderr
    status = tony.status()
    assert status["final_status"] == "SUCCEEDED", status
    driver = tony.task("driver", 0)
    m = re.search(r"debug driver: rendezvous on port (\d+)", output(tony, "driver", 0))
    assert m, output(tony, "driver", 0)
    port = int(m.group(1))
    assert port != driver["port"]  # its own port, which only its port file told
    assert driver["state"] == "STOPPED", driver
    for index in (0, 1):
        text = output(tony, "worker", index)
        # Nothing listens on the port tony reserved for the driver: the workers' rendezvous at
        # the debug driver's own port is what let them all-reduce.
        assert f"rank {index}/2: allreduce [3.0, 6.0, 9.0, 12.0]" in text, text
    assert_nothing_left(tony.home)


def test_a_driver_that_exits_fails_the_job_at_once_with_the_reason(tony, tmp_path):
    # A debug driver that ends (exit 0) without serving: the workers' rendezvous can never happen.
    src = debug_src(tmp_path, "print('driver: nothing to serve')\n")
    r = tony.run("submit", "--executes", "train.py", "--python_binary_path", HOROVOD_PYTHON,
                 "--src_dir", str(src), "--conf_file", os.path.join(example("horovod"), "tony.xml"),
                 "--conf", "tony.horovod.driver.mode.debug=true",
                 "--conf", "tony.driver.command=python3 my_driver.py", timeout=120)
    assert r.returncode == 1, r.stdout[-3000:] + r.stderr[-3000:]
    status = tony.status()
    assert status["final_status"] == "FAILED"
    assert status["message"] == (
        "untracked task driver:0 exited with exit code 0 while the job runs, but it serves the "
        "rendezvous the horovod workers need: the job cannot go on"), status["message"]
    assert status["message"] in r.stdout
    # The workers were held for the driver's rendezvous: their user processes never started.
    for index in (0, 1):
        worker = tony.task("worker", index)
        assert worker["state"] == "NOT_STARTED", worker
        assert worker["awaits"] == "", worker  # a final record holds nothing as pending
    assert_nothing_left(tony.home)
