"""Horovod, real: horovod 0.28.1 built from its sdist with PyTorch and gloo against Debian's
python3-torch (scripts/setup-frameworks.sh). The workers get horovodrun's gloo variables from
tony's horovod runtime; the `driver` task tony adds to the job (as TonY does) serves horovod's own
rendezvous server (its HTTP key-value store, with horovod's own slot plan) on its reserved port,
from the script tony ships; the example's own src/ has no driver. The workers all-reduce and train with
hvd.DistributedOptimizer. About 3 s per job on the dev machine."""
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
