"""A job outlives a stretch with no active ResourceManager (a slow failover), on the --ha
minicluster of test_yarn_ha.py. A module of its own, so its cluster starts with rm0 active and has
run nothing before: in the --ha minicluster an RM that became active by a failover does not
schedule new applications' AM containers (seen, not investigated: a harness limit, not tony's)."""
import re
import time

from test_yarn_ha import am_log, client_conf, ha_cluster, job_files, submit_args  # noqa: F401
from tonytest import Tony, eventually


def test_job_outlives_a_failover_with_no_active_rm_for_longer_than_tasks_may_miss_heartbeats(
        ha_cluster, tmp_path):
    """While no RM is active (a standby RM serves no scheduler protocol: its port refuses), the
    AM's allocate call goes round both RMs and then pauses (yarn.client.failover-sleep-base-ms,
    20 s here) before each next try. That call must not
    stall the coordinator: the executors' heartbeats (5 missed ones end a task here) and the
    client's status calls go on being answered, and the job ends well once an RM is active."""
    conf = client_conf(ha_cluster, tmp_path, yarn={
        "yarn.client.failover-sleep-base-ms": "20000",
        "yarn.client.failover-sleep-max-ms": "20000"})
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = conf
    src, xml = job_files(tmp_path, **{"tony.task.max-missed-heartbeats": "5",
                                      "tony.task.heartbeat-interval-ms": "1000"})
    proc = tony.start(*submit_args(src, xml, "--shell_env", "SLEEP=50"))
    try:
        try:
            app_id = eventually(lambda: tony.running_job(tasks=2), timeout=180, interval=0.5,
                                what="both tasks running")
        except AssertionError as e:
            proc.kill()
            out, err = proc.communicate()
            raise AssertionError(f"{e}\n{out}\n{err}") from None
        ha_cluster.no_active()
        time.sleep(28)  # past one 20 s pause, and far past 5 missed heartbeats
        assert proc.poll() is None, "tony submit ended while no RM was active"
        ha_cluster.failover()
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out + err
    assert f"job {app_id} SUCCEEDED" in out, out + err
    log = am_log(ha_cluster, app_id)
    # The AM did wait out a failover pause while the job ran on.
    assert re.search(r"allocate on ResourceManager .* failed .* in 20000 ms",
                     log), log
    assert "unregistered from the ResourceManager: SUCCEEDED" in log, log
    tasks = tony.status(app_id)["tasks"]
    assert [t["state"] for t in tasks] == ["SUCCEEDED", "SUCCEEDED"], tasks
    assert all(t.get("attempt", 0) == 0 for t in tasks), tasks
