"""Work-preserving AM restart on YARN (docs/am-restart.md, §8 item 4): on a cluster that allows
two AM attempts, kill -9 of the AM of a job with tony.am.retry-count 1 does not restart its
tasks: the second attempt recovers the job from the journal, the executors find it through the
address file and rejoin, and the same user processes run the job to its end."""
import getpass
import os
import signal

from minicluster import hdfs_cat, minicluster_fixture
from tonytest import assert_nothing_left, eventually, gone, yarn_logs
from test_yarn_e2e import rm_app
from test_yarn_faults import am_process_of, finish, journal_tasks, pid_of, start

# Its own cluster: the shared one allows one AM attempt per application.
minicluster = minicluster_fixture(nodemanagers=2,
                                  conf={"yarn.resourcemanager.am.max-attempts": "2"})


def test_kill_9_of_the_am_with_a_second_attempt_keeps_the_tasks_running(minicluster, tmp_path):
    tony, proc, d = start(tmp_path, minicluster, {"tony.am.retry-count": "1"})
    try:
        users = [pid_of(d, i, 0) for i in (0, 1)]
        app_id = eventually(lambda: tony.running_job(tasks=2), timeout=60, what="both running")
        user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
        staging = f"/user/{user}/.tony/{app_id}"
        am = eventually(lambda: am_process_of(app_id), timeout=30, what="the AM process")
        # The kill comes once the journal has both tasks running: an AM that dies before its
        # journal says a task registered is a gap of the recovery (docs/am-restart.md §8, 3).
        def journaled_running():
            tasks = journal_tasks(minicluster, staging) or []
            return len(tasks) == 2 and all(state == "RUNNING" for _, _, state, _ in tasks)

        eventually(journaled_running, timeout=30, what="the first attempt's journal, both RUNNING")
        os.kill(am, signal.SIGKILL)
        second = "appattempt_" + app_id[len("application_"):] + "_000002"
        eventually(lambda: (hdfs_cat(minicluster, staging + "/am/address") or b"").startswith(
            second.encode()), timeout=120, what="the second AM attempt's address")
        # Both executors rejoin the second attempt before the tasks may end: a user process that
        # ends while its executor has no coordinator is a gap of its own (§8, 3, "Also").
        eventually(lambda: yarn_logs(minicluster, names=("executor.log",)).count(
            "registered again with the coordinator") >= 2, timeout=120,
            what="both executors registered again with the second attempt")
        assert not any(gone(p) for p in users), users
        assert not any((d / f"pid-{i}-1").exists() for i in (0, 1)), "a task was restarted"
    finally:
        out, err, _ = finish(proc, d)
    assert proc.returncode == 0, out + err
    assert f"job {app_id} SUCCEEDED" in out, out + err
    for i in (0, 1):
        assert tony.task("worker", i, app_id)["attempt"] == 0
    assert rm_app(minicluster, app_id)["finalStatus"] == "SUCCEEDED"
    assert_nothing_left(app_id, timeout=30)
