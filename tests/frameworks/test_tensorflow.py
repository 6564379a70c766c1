"""TensorFlow, real: the movie-review classifier trains under both distribution strategies TonY
users run, with TF_CONFIG from tony's tensorflow runtime and tensorflow-cpu from PyPI.

Measured on the 2-core dev machine (TF 2.15.1, 3 epochs): test accuracy 0.84-0.85 for both
strategies (chance 0.5; 5% of the labels are flipped, so about 0.9 is the ceiling), first-epoch
loss about 0.47, last about 0.29; about 20 s (MWMS) and 15 s (PS) per job."""
import os
import subprocess

import pytest
from fwutil import TF_PYTHON, example, floats, output, port_held, require, submit
from tonytest import SYSTEM_PYTHON, assert_nothing_left

MIN_TEST_ACCURACY = 0.80
MAX_TEST_LOSS = 0.50  # ln 2 = 0.69 for a model that learned nothing


@pytest.fixture(scope="module")
def reviews(tmp_path_factory):
    """The example's data, generated as its README says, in a directory given to the job."""
    data = tmp_path_factory.mktemp("movie-reviews")
    subprocess.run([SYSTEM_PYTHON, os.path.join(example("tensorflow-mwms"), "src", "make_data.py"),
                    "--out", str(data)], check=True, stdout=subprocess.DEVNULL)
    return str(data)


def assert_learned(text, who):
    epochs = floats(who + r": epoch \d+ loss ([\d.]+) accuracy ([\d.]+)", text)
    assert len(epochs) == 3, text
    assert epochs[-1][0] < epochs[0][0] - 0.1, f"training loss did not fall: {epochs}"
    final = floats(who + r": final test loss ([\d.]+) accuracy ([\d.]+)", text)
    assert final, text
    test_loss, test_accuracy = final[0]
    assert test_loss < MAX_TEST_LOSS, text
    assert test_accuracy >= MIN_TEST_ACCURACY, text
    return test_accuracy


def test_multi_worker_mirrored_strategy_trains_two_workers_in_sync(tony, reviews):
    require(TF_PYTHON, "tensorflow")
    status = submit(tony, example("tensorflow-mwms"), "train.py", TF_PYTHON,
                    task_params=f"--data-dir {reviews}")
    assert status["final_status"] == "SUCCEEDED"
    checksums = []
    for index in (0, 1):
        text = output(tony, "worker", index)
        assert f"worker {index}: 2 replicas in sync" in text, text
        assert_learned(text, f"worker {index}")
        checksums.append(floats(r"weights_checksum (-?[\d.]+)", text)[0][0])
    # All-reduced gradients keep the two replicas identical.
    assert abs(checksums[0] - checksums[1]) < 1e-3, checksums
    # Each worker's gRPC server shared the port its executor held (the default for tensorflow).
    assert port_held(tony, "worker", 0) and port_held(tony, "worker", 1)
    assert_nothing_left(tony.home)


def test_parameter_server_strategy_chief_coordinates_and_ends_the_job(tony, reviews):
    require(TF_PYTHON, "tensorflow")
    status = submit(tony, example("tensorflow-ps"), "train.py", TF_PYTHON,
                    task_params=f"--data-dir {reviews}")
    assert status["final_status"] == "SUCCEEDED"
    assert "chief task chief:0 succeeded" in status["message"]
    text = output(tony, "chief", 0)
    assert_learned(text, "chief")
    # Variables live on the parameter server and both workers ran training steps.
    assert "variables_on /job:ps/replica:0/task:0" in text, text
    steps = floats(r"steps_by_worker \{0: (\d+), 1: (\d+)\}", text)
    assert steps and min(steps[0]) >= 10, text
    # ps and workers serve forever; tony stopped them when the chief succeeded.
    for role, index in (("ps", 0), ("worker", 0), ("worker", 1)):
        task = tony.task(role, index)
        assert "serving" in output(tony, role, index)
        assert task["state"] == "STOPPED" and "stopped" in task["diagnostics"], task
    assert_nothing_left(tony.home)
