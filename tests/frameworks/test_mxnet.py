"""MXNet, real: mxnet 1.9.1 from PyPI (the last release; it runs on Python 3.11 with numpy < 1.24)
with its ps-lite dist_sync kvstore. A scheduler, a server and 2 workers find each other through the
DMLC variables tony's mxnet runtime sets; the workers all-reduce through the server and train a
linear regression with the optimizer on the server. About 4 s per job on the dev machine."""
import re

from fwutil import MXNET_PYTHON, example, floats, output, require, submit
from tonytest import assert_nothing_left


def test_scheduler_server_and_two_workers_all_reduce_and_train(tony):
    require(MXNET_PYTHON, "mxnet")
    status = submit(tony, example("mxnet"), "train.py", MXNET_PYTHON)
    assert status["final_status"] == "SUCCEEDED"
    # ps-lite's scheduler and server exit by themselves once both workers are done.
    for role, index in (("scheduler", 0), ("server", 0), ("worker", 0), ("worker", 1)):
        task = tony.task(role, index)
        assert task["state"] == "SUCCEEDED" and task["exit_code"] == 0, task
    scheduler = tony.task("scheduler", 0)
    checksums, ranks = set(), set()
    for index in (0, 1):
        text = output(tony, "worker", index)
        # ps-lite numbers workers in the order they reach the scheduler, not by task index.
        m = re.search(r"worker (\d)/2: DMLC_ROLE worker scheduler (\S+)", text)
        assert m and m.group(2) == f"127.0.0.1:{scheduler['port']}", text
        rank = int(m.group(1))
        ranks.add(rank)
        assert f"worker {rank}/2: allreduce [3.0, 6.0, 9.0, 12.0]" in text, text
        (first,), (last,) = floats(rf"worker {rank}/2: epoch \d+ loss ([\d.]+)", text)
        assert last < first / 100, text
        (max_error, checksum), = floats(r"max_error ([\d.]+) checksum (-?[\d.]+)", text)
        assert max_error < 0.05, text
        checksums.add(checksum)
    assert ranks == {0, 1}
    assert len(checksums) == 1, f"workers hold different weights: {checksums}"
    assert_nothing_left(tony.home)
