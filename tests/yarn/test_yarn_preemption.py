"""YARN's preemption on the minicluster (issue 11; README "Restarts"): the CapacityScheduler with
two queues and its preemption monitor takes a container back from a job that grew past its
queue's share when another queue's job needs it. The ResourceManager first says so in its
allocate answers (the preemption notice), and only kills the container after
max_wait_before_kill. tony acts on the notice: it stops that task at once, so that the user
process gets SIGTERM and can save its state, and replaces it without counting a failure, even
under restart-policy never."""
import os

from minicluster import minicluster_fixture
from tonytest import SYSTEM_PYTHON, Tony, assert_nothing_left, eventually, tony_xml, write
from test_yarn_e2e import app_id_from

# Two queues of half the cluster each, either may grow to all of it (one user may too), and a
# preemption monitor that acts within a second; a container is killed 20 s after its notice.
PREEMPTION = {
    "yarn.scheduler.capacity.root.queues": "a,b",
    "yarn.scheduler.capacity.root.a.capacity": "50",
    "yarn.scheduler.capacity.root.a.maximum-capacity": "100",
    "yarn.scheduler.capacity.root.a.user-limit-factor": "2",
    "yarn.scheduler.capacity.root.b.capacity": "50",
    "yarn.scheduler.capacity.root.b.maximum-capacity": "100",
    "yarn.scheduler.capacity.root.b.user-limit-factor": "2",
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
    "yarn.resourcemanager.scheduler.monitor.policies":
        "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity."
        "ProportionalCapacityPreemptionPolicy",
    "yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval": "500",
    "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill": "20000",
    "yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor": "1.0",
    "yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round": "1.0",
    "yarn.resourcemanager.monitor.capacity.preemption.max_ignored_over_capacity": "0",
}


minicluster = minicluster_fixture(nodemanagers=2, conf=PREEMPTION)


# Each attempt says it runs; on SIGTERM it saves its "checkpoint" and exits 0, as a training
# script that handles preemption does; otherwise it waits until the test says go.
GREEDY = """
import os, signal, sys, time
d = sys.argv[1]
index, attempt = int(os.environ["TASK_INDEX"]), int(os.environ["ATTEMPT_NUMBER"])
def save_and_exit(signum, frame):
    open(os.path.join(d, f"saved-{index}-{attempt}"), "w").write("checkpoint")
    sys.exit(0)
signal.signal(signal.SIGTERM, save_and_exit)
open(os.path.join(d, f"running-{index}-{attempt}"), "w").close()
deadline = time.monotonic() + 240
while not os.path.exists(os.path.join(d, "go")):
    if time.monotonic() > deadline:
        sys.exit(9)
    time.sleep(0.1)
print(f"worker:{index} attempt {attempt} done", flush=True)
"""


def submit(tmp_path, conf_dir, name, queue, workers, script, params):
    src = tmp_path / f"src-{name}"
    write(str(src / "task.py"), script)
    xml = tony_xml(str(tmp_path / f"tony-{name}.xml"), {
        "tony.application.framework": "generic", "tony.yarn.queue": queue,
        "tony.worker.instances": str(workers), "tony.worker.memory": "2g",
        "tony.am.memory": "256m", "tony.worker.restart-policy": "never",
        "tony.worker.restart-scope": "task", "tony.worker.restart-backoff-ms": "100"})
    tony = Tony(tmp_path / f"home-{name}")
    tony.env["HADOOP_CONF_DIR"] = conf_dir
    proc = tony.start("submit", "--executes", "task.py", "--task_params", params,
                      "--python_binary_path", SYSTEM_PYTHON, "--src_dir", str(src),
                      "--conf_file", xml)
    return tony, proc


def test_a_preempted_task_is_told_first_saves_its_state_and_is_replaced_uncounted(
        minicluster, tmp_path):
    d = tmp_path / "shared"
    d.mkdir()
    d.chmod(0o777)
    # Queue a's job takes 6.25 of the cluster's 8 GB (3 x 2 GB and its AM): past its half.
    greedy, greedy_proc = submit(tmp_path, minicluster, "greedy", "a", 3, GREEDY, str(d))
    try:
        eventually(lambda: all((d / f"running-{i}-0").exists() for i in range(3)), timeout=180,
                   what="the greedy job's three workers running")
        # Queue b's job needs 2 GB of its half: only a preemption of queue a's job makes room.
        other, other_proc = submit(tmp_path, minicluster, "other", "b", 1,
                                   "print('the other queue ran', flush=True)\n", str(d))
        out_b, err_b = other_proc.communicate(timeout=240)
        assert other_proc.returncode == 0, out_b + err_b
        # Only now may the greedy job's tasks finish (its replacement starts once b is done).
        (d / "go").touch()
        out, err = greedy_proc.communicate(timeout=240)
    finally:
        for p in (greedy_proc,):
            if p.poll() is None:
                p.kill()
                p.wait()
    app_id = app_id_from(out)
    assert greedy_proc.returncode == 0, out + err
    assert f"job {app_id} SUCCEEDED" in out, out
    workers = [greedy.task("worker", i, app_id) for i in range(3)]
    preempted = [w for w in workers if w.get("past_attempts")]
    assert preempted, workers
    for w in preempted:
        i = w["index"]
        past = w["past_attempts"][0]
        # Stopped by tony on the notice (not killed by YARN): STOPPED, its reason, its SIGTERM
        # handler ran (the checkpoint), and the restart was not counted (policy never).
        assert past["state"] == "STOPPED", w
        assert past["end_reason"].startswith(
            "preempted by YARN: the ResourceManager takes its container back; stopped so that it "
            "can save its state"), w
        assert (d / f"saved-{i}-0").read_text() == "checkpoint", w
        assert "replaced, not counted as a failure" in past["restart"], w
        assert "preempted by YARN (the ResourceManager's notice)" in past["restart"], w
        assert w["state"] == "SUCCEEDED" and w.get("attempt", 0) == 1, w
        assert (d / f"running-{i}-1").exists()
    # A task the RM did not take back ran once, to the end.
    for w in workers:
        if w not in preempted:
            assert w["state"] == "SUCCEEDED" and w.get("attempt", 0) == 0, w
            assert not (d / f"saved-{w['index']}-0").exists()
    assert_nothing_left(app_id, timeout=30)
    assert_nothing_left(app_id_from(out_b), timeout=30)
