"""JAX, real: jax[cpu] from PyPI; processes started by tony find their coordinator and their
process id from the variables tony's jax runtime sets, all-reduce across processes (gloo) and train
a data-parallel linear regression to the true weights. About 8 s per job on the dev machine."""
import re

from fwutil import JAX_PYTHON, example, floats, output, port_held, require, submit
from tonytest import assert_nothing_left


def check_processes(tony, tasks):
    """Each (role, index) in process-id order must report the right all-reduce and training."""
    count = len(tasks)
    expected_psum = [sum(range(1, count + 1)) * v for v in (1.0, 2.0, 3.0, 4.0)]
    coordinator = tony.task(*tasks[0])
    for pid, (role, index) in enumerate(tasks):
        text = output(tony, role, index)
        m = re.search(rf"process {pid}/{count}: coordinator (\S+) devices (\d+)", text)
        assert m, text
        assert m.group(1) == f"{coordinator['host']}:{coordinator['port']}", text
        assert int(m.group(2)) == count, text
        psum = re.search(rf"process {pid}/{count}: psum \[(.*)\]", text)
        assert psum and [float(v) for v in psum.group(1).split(",")] == expected_psum, text
        trained = floats(rf"process {pid}/{count}: loss first ([\d.]+) last ([\d.]+) .* "
                         r"max_error ([\d.]+) in_sync True", text)
        assert trained, text
        first, last, max_error = trained[0]
        assert last < first / 100 and max_error < 0.05, text


def test_two_processes_all_reduce_and_train(tony):
    require(JAX_PYTHON, "jax")
    status = submit(tony, example("jax"), "collective.py", JAX_PYTHON)
    assert status["final_status"] == "SUCCEEDED"
    check_processes(tony, [("worker", 0), ("worker", 1)])
    # Process 0's coordinator bound the port its executor held (the default for jax).
    assert port_held(tony, "worker", 0)
    assert_nothing_left(tony.home)


def test_chief_is_process_zero_of_three(tony):
    require(JAX_PYTHON, "jax")
    status = submit(tony, example("jax"), "collective.py", JAX_PYTHON,
                    conf=["tony.chief.instances=1"])
    assert status["final_status"] == "SUCCEEDED"
    check_processes(tony, [("chief", 0), ("worker", 0), ("worker", 1)])
    assert_nothing_left(tony.home)
