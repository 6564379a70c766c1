"""`tony submit` on a real YARN (MiniYARNCluster with 2 NodeManagers + MiniDFS): the job is
staged to HDFS, the coordinator runs as the AM, every task runs `tony executor` in a container of
its own, and the client exits with the job's result. The staging dir is gone afterwards. One
module, so that the tier starts one minicluster."""
import getpass
import glob
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request

from tonytest import SYSTEM_PYTHON, Tony, assert_nothing_left, eventually, tony_xml, write
from minicluster import site_property

SCRIPT = """
import os, sys
role, index = os.environ["JOB_NAME"], int(os.environ["TASK_INDEX"])
print(f"hello from {role}:{index} rank={os.environ.get('RANK')} world={os.environ.get('WORLD_SIZE')}", flush=True)
if os.environ.get("MODE") == "fail1" and index == 1:
    print("worker 1 is about to fail", file=sys.stderr, flush=True)
    sys.exit(3)
if os.environ.get("MODE") == "restart1" and index == 1 and os.environ["ATTEMPT_NUMBER"] == "0":
    print("worker 1 attempt 0 exits 75", file=sys.stderr, flush=True)
    sys.exit(75)
"""


def yarn_tony(tmp_path, conf_dir):
    t = Tony(tmp_path / "home")
    t.env["HADOOP_CONF_DIR"] = conf_dir
    return t


def submit(tony, tmp_path, *extra, **props):
    src = tmp_path / "src"
    write(str(src / "job.py"), SCRIPT)
    conf = {"tony.application.framework": "pytorch", "tony.worker.instances": "2",
            "tony.worker.memory": "256m", "tony.am.memory": "256m"}
    conf.update(props)
    xml = tony_xml(str(tmp_path / "tony.xml"), conf)
    return tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                    "--src_dir", str(src), "--conf_file", xml, *extra, timeout=300)


def app_id_from(output):
    m = re.search(r"application (application_\d+_\d+) submitted", output)
    return m.group(1) if m else None


def staging_exists(conf_dir, app_id):
    http = site_property(conf_dir, "hdfs-site.xml", "dfs.namenode.http-address")
    user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
    url = f"http://{http}/webhdfs/v1/user/{user}/.tony/{app_id}?op=GETFILESTATUS&user.name={user}"
    try:
        urllib.request.urlopen(url, timeout=10)
        return True
    except urllib.error.HTTPError as e:
        assert e.code == 404, e
        return False


def rm_rest(conf_dir, path):
    """GET /ws/v1/cluster/<path> from the RM's REST API: its own view, independent of tony's."""
    web = site_property(conf_dir, "yarn-site.xml", "yarn.resourcemanager.webapp.address")
    req = urllib.request.Request(f"http://{web}/ws/v1/cluster/{path}",
                                 headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


def rm_app(conf_dir, app_id):
    return rm_rest(conf_dir, f"apps/{app_id}")["app"]


def test_two_workers_succeed_on_yarn(minicluster, tmp_path):
    tony = yarn_tony(tmp_path, minicluster)
    r = submit(tony, tmp_path)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    app_id = app_id_from(r.stdout)
    assert app_id, out
    assert "tony: tracking URL" in r.stdout
    assert f"job {app_id} SUCCEEDED" in r.stdout, out
    assert f"application {app_id} FINISHED" in r.stdout, out
    # Both tasks ran in YARN containers (ids of this application).
    status = tony.status(app_id)
    assert status["final_status"] == "SUCCEEDED"
    assert [(t["role"], t["index"], t["state"]) for t in status["tasks"]] == [
        ("worker", 0, "SUCCEEDED"), ("worker", 1, "SUCCEEDED")]
    app_suffix = app_id[len("application_"):]
    for t in status["tasks"]:
        assert t["container_id"].startswith("container_") and app_suffix in t["container_id"], t
    assert not staging_exists(minicluster, app_id)
    # The local copies of what was uploaded went too; the job's record stays.
    assert not os.path.exists(os.path.join(tony.job_dir(app_id), "staging"))
    s = tony.run("status", app_id)
    assert s.returncode == 0 and "SUCCEEDED" in s.stdout
    # The task logs stay on the NodeManagers; `tony logs` reads them over the NM web service.
    for t in status["tasks"]:
        assert t["log_url"].startswith("http://") and t["container_id"] in t["log_url"], t
        line = f"tony: {t['role']}:{t['index']} in {t['container_id']}, logs {t['log_url']}"
        assert line in r.stdout, r.stdout
    logs = tony.run("logs", app_id, "--task", "worker:1")
    assert logs.returncode == 0, logs.stdout + logs.stderr
    assert "hello from worker:1 rank=1 world=2" in logs.stdout, logs.stdout + logs.stderr
    assert "worker:0" not in logs.stdout, logs.stdout
    # The executor ran from the bundle its NodeManager localized and unpacked (an ARCHIVE
    # resource), with gRPC loaded from the bundle's lib/, not from this machine's (the executor
    # logs both: it is not dumpable, so no other process can read its /proc/<pid>/exe or maps).
    m = re.search(r"executor exe=(\S+) grpc=(\S+)", logs.stdout)
    assert m, logs.stdout
    exe, grpc = m.groups()
    assert re.search(rf"/{app_id}/filecache/\d+/tony-bundle\.tar\.gz/bin/tony$", exe), exe
    bundle_lib = os.path.dirname(os.path.dirname(exe)) + "/lib/"
    assert grpc.startswith(bundle_lib) and "," not in grpc, (grpc, bundle_lib)
    # The task's port was held while its process ran, and the process (which binds plainly, as
    # PyTorch does) got the bundle's port-hold library preloaded.
    m = re.search(r"keeping port \d+ bound with SO_REUSEPORT \(the default\); the process binds "
                  r"it through (\S+)", logs.stdout)
    assert m, logs.stdout
    assert os.path.normpath(m.group(1)) == bundle_lib + "libtony-reuseport.so", m.group(1)
    every = tony.run("logs", app_id, "--task", "worker:0", "--stream", "all")
    assert every.returncode == 0, every.stdout + every.stderr
    for name in ("stdout", "stderr", "executor.log"):
        assert f"==> worker:0 attempt 0 {name} <==" in every.stdout, every.stdout
    assert "hello from worker:0" in every.stdout, every.stdout


def test_debug_keeps_the_staged_job_and_says_where(minicluster, tmp_path):
    """TonY's --debug: the HDFS staging dir and the local staged files stay after the job (neither
    the client nor the AM removes them), and the client names both."""
    tony = yarn_tony(tmp_path, minicluster)
    r = submit(tony, tmp_path, "--debug")
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    app_id = app_id_from(r.stdout)
    local = os.path.join(tony.job_dir(app_id), "staging")
    fs = site_property(minicluster, "core-site.xml", "fs.defaultFS").rstrip("/")
    user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
    note = f"tony: --debug: the staged job is kept in {local} and {fs}/user/{user}/.tony/{app_id}"
    assert r.stdout.count(note) == 2, out  # when it starts and at its end
    assert "tony_src.zip" in os.listdir(local), os.listdir(local)
    assert staging_exists(minicluster, app_id)
    # The AM has unregistered and exited: it did not remove it either.
    eventually(lambda: rm_app(minicluster, app_id)["state"] == "FINISHED", timeout=30,
               interval=0.5, what="the application to finish")
    assert staging_exists(minicluster, app_id)


def test_failing_worker_fails_the_application_with_its_reason(minicluster, tmp_path):
    tony = yarn_tony(tmp_path, minicluster)
    r = submit(tony, tmp_path, "--shell_env", "MODE=fail1")
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    app_id = app_id_from(r.stdout)
    assert f"job {app_id} FAILED" in r.stdout, out
    assert "task worker:1 failed: exit 3" in r.stdout, out
    assert f"application {app_id} FINISHED" in r.stdout, out
    assert not staging_exists(minicluster, app_id)
    # The RM knows why: the AM unregistered FAILED with the task's reason as diagnostics.
    app = rm_app(minicluster, app_id)
    assert app["finalStatus"] == "FAILED", app
    assert "task worker:1 failed: exit 3" in app["diagnostics"], app["diagnostics"]
    # The failing task's stderr, from its NodeManager.
    logs = tony.run("logs", app_id, "--task", "worker:1", "--stream", "stderr")
    assert "worker 1 is about to fail" in logs.stdout, logs.stdout + logs.stderr


def test_a_gang_restart_runs_every_task_again_in_new_containers(minicluster, tmp_path):
    tony = yarn_tony(tmp_path, minicluster)
    r = submit(tony, tmp_path, "--shell_env", "MODE=restart1",
               **{"tony.worker.restart-policy": "exit-code",
                  "tony.worker.restart-exit-codes": "75",
                  "tony.worker.restart-backoff-ms": "100"})
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    app_id = app_id_from(r.stdout)
    assert f"job {app_id} SUCCEEDED" in r.stdout, out
    status = tony.status(app_id)
    used = set()
    for t in status["tasks"]:
        assert t["attempt"] == 1 and t["state"] == "SUCCEEDED", t
        past = t["past_attempts"][0]
        assert past["container_id"] != t["container_id"], t
        used |= {past["container_id"], t["container_id"]}
    assert len(used) == 4  # a new container for every task of the gang
    w1 = next(t for t in status["tasks"] if t["index"] == 1)
    assert w1["past_attempts"][0]["exit_code"] == 75
    assert "restart 1 of 3 (tony.worker.max-restarts)" in w1["past_attempts"][0]["restart"]
    assert rm_app(minicluster, app_id)["finalStatus"] == "SUCCEEDED"
    # The restarted task's logs are those of its new attempt, from its new container.
    logs = tony.run("logs", app_id, "--task", "worker:1", "--stream", "stderr")
    assert logs.returncode == 0, logs.stdout + logs.stderr
    assert "exits 75" not in logs.stdout


def test_tasks_spread_over_both_node_managers(minicluster, tmp_path):
    # Each NM offers 4096 MB (tests/minicluster); four 1536 MB workers cannot fit on one
    # (at most two per NM), so the scheduler must use both NodeManagers.
    tony = yarn_tony(tmp_path, minicluster)
    r = submit(tony, tmp_path, **{"tony.worker.instances": "4", "tony.worker.memory": "1536m"})
    assert r.returncode == 0, r.stdout + r.stderr
    app_id = app_id_from(r.stdout)
    tasks = tony.status(app_id)["tasks"]
    assert len(tasks) == 4 and all(t["state"] == "SUCCEEDED" for t in tasks), tasks
    nodes = {urllib.parse.urlparse(t["log_url"]).netloc for t in tasks}
    assert len(nodes) >= 2, tasks


def test_more_memory_than_any_node_is_refused_before_submitting(minicluster, tmp_path):
    tony = yarn_tony(tmp_path, minicluster)
    submitted = rm_rest(minicluster, "metrics")["clusterMetrics"]["appsSubmitted"]
    r = submit(tony, tmp_path, **{"tony.worker.memory": "64g"})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "tony.worker.memory = 64g" in r.stderr, r.stderr
    assert "the largest NodeManager has 4096 MB" in r.stderr, r.stderr
    # Refused before submission: no application reached the RM, no job record was left.
    assert rm_rest(minicluster, "metrics")["clusterMetrics"]["appsSubmitted"] == submitted
    assert tony.jobs() == [], tony.jobs()


# The pre-submit fit check (engine/fit_check.h, shared with the local engine). These jobs keep
# the AM's default memory (2g).
def submit_unfitting(tony, tmp_path, *extra, **props):
    src = tmp_path / "src"
    write(str(src / "job.py"), "print('never runs')\n")
    conf = {"tony.application.framework": "pytorch", "tony.worker.instances": "2",
            "tony.worker.memory": "4g"}
    conf.update(props)
    xml = tony_xml(str(tmp_path / "tony.xml"), conf)
    return ["submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
            "--src_dir", str(src), "--conf_file", xml, *extra]


def staged_apps(conf_dir):
    """The application dirs under the user's HDFS staging root (WebHDFS LISTSTATUS)."""
    http = site_property(conf_dir, "hdfs-site.xml", "dfs.namenode.http-address")
    user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
    url = f"http://{http}/webhdfs/v1/user/{user}/.tony?op=LISTSTATUS&user.name={user}"
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return sorted(f["pathSuffix"] for f in json.load(r)["FileStatuses"]["FileStatus"])
    except urllib.error.HTTPError as e:
        assert e.code == 404, e
        return []


def assert_refused_leaving_nothing(tony, conf_dir, r, submitted, staged):
    assert r.returncode == 2, r.stdout + r.stderr
    assert "tony.application.skip-fit-check=true" in r.stderr, r.stderr
    assert "submitted" not in r.stdout, r.stdout
    assert rm_rest(conf_dir, "metrics")["clusterMetrics"]["appsSubmitted"] == submitted
    assert staged_apps(conf_dir) == staged
    assert tony.jobs() == [], tony.jobs()


def test_a_gang_that_can_never_fit_is_refused_naming_the_numbers(minicluster, tmp_path):
    # Two 4 GB workers and the 2 GB AM on two 4 GB NodeManagers: YARN would start the AM and one
    # worker and keep the other asked for forever.
    tony = yarn_tony(tmp_path, minicluster)
    submitted = rm_rest(minicluster, "metrics")["clusterMetrics"]["appsSubmitted"]
    staged = staged_apps(minicluster)
    # Refused before anything is submitted (the RM's count below); tony.run bounds the wait.
    r = tony.run(*submit_unfitting(tony, tmp_path), timeout=60)
    xml = tmp_path / "tony.xml"
    assert ("tony: error: the job can never run on this cluster: the AM (2048 MB) and 2 worker "
            "containers of 4096 MB (10240 MB in all) cannot all be placed on 2 NodeManagers of "
            "4096 MB each; the gang needs all of them at once (tony.am.memory = 2g by default, "
            f"tony.worker.memory = 4g from {xml}, tony.worker.instances = 2 from {xml})"
            ) in r.stderr, r.stderr
    assert_refused_leaving_nothing(tony, minicluster, r, submitted, staged)

    r = tony.run(*submit_unfitting(tony, tmp_path, "--conf", "tony.worker.memory=8g"), timeout=60)
    assert ("tony: error: the job can never run on this cluster: a worker container needs 8192 MB "
            "(tony.worker.memory = 8g from --conf) but the largest NodeManager has 4096 MB (2 "
            "nodes running)"
            ) in r.stderr, r.stderr
    assert_refused_leaving_nothing(tony, minicluster, r, submitted, staged)


def test_skip_fit_check_submits_a_job_that_does_not_fit(minicluster, tmp_path):
    tony = yarn_tony(tmp_path, minicluster)
    proc = tony.start(*submit_unfitting(tony, tmp_path, "--conf",
                                        "tony.application.skip-fit-check=true"))
    try:
        def submitted():
            for job in tony.jobs():
                try:
                    return job if rm_app(minicluster, job)["state"] else None
                except urllib.error.HTTPError:
                    return None
            return None
        app_id = eventually(submitted, timeout=60, interval=0.5, what="the application submitted")
        k = tony.run("kill", app_id, timeout=120)
        assert k.returncode == 0, k.stdout + k.stderr
        out, err = proc.communicate(timeout=120)
        assert "can never run" not in err, err
        assert f"application {app_id} submitted" in out, out + err
        assert rm_app(minicluster, app_id)["state"] == "KILLED"
        assert not staging_exists(minicluster, app_id)
        assert_nothing_left(app_id, timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_gang_the_busy_cluster_does_not_give_fails_at_the_gang_timeout(minicluster, tmp_path):
    # Another job holds a 3 GB worker on each NodeManager: the second job fits the cluster (the
    # pre-submit check lets it in) but YARN cannot give its 3 GB worker now.
    src = tmp_path / "src"
    write(str(src / "sleepy.py"), "import time\ntime.sleep(300)\n")
    busy = yarn_tony(tmp_path / "busy", minicluster)
    busy_xml = tony_xml(str(tmp_path / "busy.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "2",
        "tony.worker.memory": "3g", "tony.am.memory": "256m"})
    blocker = busy.start("submit", "--executes", "sleepy.py", "--python_binary_path",
                         SYSTEM_PYTHON, "--src_dir", str(src), "--conf_file", busy_xml)
    try:
        busy_id = eventually(busy.running_job, timeout=180, interval=0.5,
                             what="the busy job's workers running")
        tony = yarn_tony(tmp_path, minicluster)
        xml = tony_xml(str(tmp_path / "tony.xml"), {
            "tony.application.framework": "pytorch", "tony.worker.instances": "1",
            "tony.worker.memory": "3g", "tony.am.memory": "256m",
            "tony.application.gang-timeout-ms": "5000"})
        r = tony.run("submit", "--executes", "sleepy.py", "--python_binary_path", SYSTEM_PYTHON,
                     "--src_dir", str(src), "--conf_file", xml, timeout=180)
        out = r.stdout + r.stderr
        assert r.returncode == 1, out
        assert (f"the gang was not allocated within 5000 ms (tony.application.gang-timeout-ms, "
                f"from {xml}): 0 of 1 worker containers of 3072 MB, 1 vcores allocated"
                ) in r.stdout, out
        app_id = app_id_from(r.stdout)
        assert rm_app(minicluster, app_id)["finalStatus"] == "FAILED"
        assert tony.task("worker", 0)["state"] == "NOT_STARTED"
        assert busy.running_job() == busy_id  # the other job was never touched
    finally:
        k = busy.run("kill", busy.jobs()[-1], timeout=120) if busy.jobs() else None
        blocker.communicate(timeout=120)
        assert k is not None and k.returncode == 0, k and (k.stdout + k.stderr)


def test_kill_moves_the_application_to_killed_and_leaves_nothing_running(minicluster, tmp_path):
    tony = yarn_tony(tmp_path, minicluster)
    src = tmp_path / "src"
    write(str(src / "sleepy.py"), "import time\nprint('sleeping', flush=True)\ntime.sleep(300)\n")
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "2",
        "tony.worker.memory": "256m", "tony.am.memory": "256m"})
    proc = tony.start("submit", "--executes", "sleepy.py", "--python_binary_path", SYSTEM_PYTHON,
                      "--src_dir", str(src), "--conf_file", xml)
    try:
        app_id = eventually(tony.running_job, timeout=180, interval=0.5,
                            what="both tasks running")
        k = tony.run("kill", app_id, timeout=120)
        assert k.returncode == 0, k.stdout + k.stderr
        assert f"job {app_id} KILLED" in k.stdout, k.stdout + k.stderr
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 1, out + err
        assert "KILLED" in out, out + err
        assert not staging_exists(minicluster, app_id)
        assert_nothing_left(app_id, timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


EXAMPLE = os.path.join(os.path.dirname(__file__), "../../examples/pytorch-ddp")


def test_pytorch_ddp_example_on_yarn(minicluster, tmp_path):
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = minicluster
    r = tony.run("submit", "--executes", "train.py", "--task_params", "--epochs 30",
                 "--python_binary_path", SYSTEM_PYTHON, "--src_dir", os.path.join(EXAMPLE, "src"),
                 "--conf_file", os.path.join(EXAMPLE, "tony.xml"), "--conf", "tony.am.memory=256m",
                 timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    app_id = re.search(r"application (application_\d+_\d+) submitted", r.stdout).group(1)
    assert f"job {app_id} SUCCEEDED" in r.stdout
    # The minicluster keeps container logs under <conf dir>/data (tests/minicluster).
    outs = glob.glob(os.path.join(minicluster, "data", "**", app_id, "container_*", "stdout"),
                     recursive=True)
    finals = {}
    for path in outs:
        m = re.search(r"rank (\d)/2: final test loss ([\d.]+) accuracy ([\d.]+) replicas_in_sync (\w+)",
                      open(path).read())
        if m:
            finals[int(m.group(1))] = (float(m.group(3)), m.group(4))
    assert set(finals) == {0, 1}, (outs, r.stdout)
    for rank, (accuracy, in_sync) in finals.items():
        assert accuracy >= 0.95 and in_sync == "True", (rank, accuracy, in_sync)


def test_docker_runtime_is_asked_for_in_every_task_container(minicluster, tmp_path):
    """tony.docker.* becomes YARN's Docker runtime variables in each container's launch context,
    as TonY sets them. The minicluster's NodeManagers use the DefaultContainerExecutor, which runs
    the command as usual and leaves those variables in its environment: this proves what tony asks
    YARN for. Running the image itself needs a NodeManager with the LinuxContainerExecutor and a
    Docker daemon, which this machine has not."""
    tony = yarn_tony(tmp_path, minicluster)
    src = tmp_path / "src"
    write(str(src / "env.py"), "import os\nprint('runtime=%s image=%s mounts=%s' % tuple(\n"
          "    os.environ.get('YARN_CONTAINER_RUNTIME_' + k) for k in\n"
          "    ('TYPE', 'DOCKER_IMAGE', 'DOCKER_MOUNTS')), flush=True)\n")
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "2",
        "tony.worker.memory": "256m", "tony.am.memory": "256m", "tony.docker.enabled": "true",
        "tony.docker.containers.image": "tony-test/train:1",
        "tony.docker.containers.mount": "/tmp:/tmp:ro"})
    r = tony.run("submit", "--executes", "env.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", xml, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    app_id = app_id_from(r.stdout)
    for task in ("worker:0", "worker:1"):
        logs = tony.run("logs", app_id, "--task", task)
        assert "runtime=docker image=tony-test/train:1 mounts=/tmp:/tmp:ro" in logs.stdout, (
            logs.stdout + logs.stderr)


def test_training_stage_containers_are_asked_for_after_the_prepare_stage(minicluster, tmp_path):
    tony = yarn_tony(tmp_path, minicluster)
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "generic", "tony.am.memory": "256m",
        "tony.application.training-stage": "worker",
        "tony.prep.instances": "1", "tony.prep.memory": "256m",
        "tony.prep.command": 'echo "prepared with $CLUSTER_SPEC"',
        "tony.worker.instances": "2", "tony.worker.memory": "256m",
        "tony.worker.command": 'echo "training with $CLUSTER_SPEC"'})
    r = tony.run("submit", "--conf_file", xml, timeout=300)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    app_id = app_id_from(r.stdout)
    tasks = {f"{t['role']}:{t['index']}": t for t in tony.status(app_id)["tasks"]}
    assert {k: (t["state"], t["stage"]) for k, t in tasks.items()} == {
        "prep:0": ("SUCCEEDED", "prepare"), "worker:0": ("SUCCEEDED", "training"),
        "worker:1": ("SUCCEEDED", "training")}
    # YARN numbers containers in allocation order: the workers' came after prep's.
    number = {k: int(t["container_id"].rsplit("_", 1)[1]) for k, t in tasks.items()}
    assert number["worker:0"] > number["prep:0"] and number["worker:1"] > number["prep:0"], number
    logs = tony.run("logs", app_id, "--task", "worker:1")
    spec = json.loads(re.search(r"training with (\{.*\})", logs.stdout).group(1))
    assert sorted(spec) == ["worker"] and len(spec["worker"]) == 2, logs.stdout
    am = tony.run("logs", app_id)
    assert "the prepare stage (prep) succeeded: starting the training stage (worker)" in \
        am.stdout, am.stdout + am.stderr


def test_preprocess_runs_as_its_own_container_before_the_tasks_and_passes_model_params(
        minicluster, tmp_path):
    # TonY's tony.application.enable-preprocess: tony.am.command runs once as task am:0, in a
    # container with the AM's resources, before any task container is asked for; its
    # "Model parameters: " line reaches the workers as MODEL_PARAMS.
    tony = yarn_tony(tmp_path, minicluster)
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "generic", "tony.am.memory": "256m",
        "tony.application.enable-preprocess": "true",
        "tony.am.command": 'echo "preprocess: PREPROCESSING_JOB=$PREPROCESSING_JOB"; '
                           'echo "Model parameters: lr=0.5"',
        "tony.worker.instances": "2", "tony.worker.memory": "256m",
        "tony.worker.command": 'echo "training with MODEL_PARAMS=$MODEL_PARAMS"'})
    r = tony.run("submit", "--conf_file", xml, timeout=300)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    app_id = app_id_from(r.stdout)
    assert rm_app(minicluster, app_id)["finalStatus"] == "SUCCEEDED"
    tasks = {f"{t['role']}:{t['index']}": t for t in tony.status(app_id)["tasks"]}
    assert {k: (t["state"], t["stage"]) for k, t in tasks.items()} == {
        "am:0": ("SUCCEEDED", "preprocess"), "worker:0": ("SUCCEEDED", "training"),
        "worker:1": ("SUCCEEDED", "training")}
    suffix = app_id[len("application_"):]
    number = {}
    for k, t in tasks.items():
        assert t["container_id"].startswith("container_") and suffix in t["container_id"], t
        number[k] = int(t["container_id"].rsplit("_", 1)[1])
    # The preprocess task has a container of its own (not the AM's, container ..._000001), and the
    # workers' came after it.
    assert number["am:0"] > 1, number
    assert number["worker:0"] > number["am:0"] and number["worker:1"] > number["am:0"], number
    prep = tony.run("logs", app_id, "--task", "am:0")
    assert "preprocess: PREPROCESSING_JOB=true" in prep.stdout, prep.stdout + prep.stderr
    for index in (0, 1):
        logs = tony.run("logs", app_id, "--task", f"worker:{index}")
        assert "training with MODEL_PARAMS=lr=0.5" in logs.stdout, logs.stdout + logs.stderr
    assert_nothing_left(app_id, timeout=30)


def test_site_files_named_by_tony_keys_replace_hadoop_conf_dir(minicluster, tmp_path):
    # TonY's tony.application.yarn-conf-path / hdfs-conf-path, with no HADOOP_CONF_DIR: files of
    # other names (the cluster's, copied), core-site.xml beside them. The key chooses the YARN
    # engine, and `tony logs` of the application later finds the cluster from the job's record.
    site = tmp_path / "site"
    site.mkdir()
    for name in ("core-site.xml", "yarn-site.xml", "hdfs-site.xml"):
        target = name if name == "core-site.xml" else "prod-" + name
        (site / target).write_text(open(os.path.join(minicluster, name)).read())
    tony = Tony(tmp_path / "home")
    assert "HADOOP_CONF_DIR" not in tony.env and "YARN_CONF_DIR" not in tony.env
    r = submit(tony, tmp_path, **{
        "tony.application.yarn-conf-path": str(site / "prod-yarn-site.xml"),
        "tony.application.hdfs-conf-path": str(site / "prod-hdfs-site.xml")})
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "on the yarn engine" in r.stdout, out
    assert "not supported" not in r.stderr, r.stderr
    app_id = app_id_from(r.stdout)
    assert rm_app(minicluster, app_id)["finalStatus"] == "SUCCEEDED"
    logs = tony.run("logs", app_id, "--task", "worker:1")
    assert logs.returncode == 0, logs.stdout + logs.stderr
    assert "hello from worker:1 rank=1 world=2" in logs.stdout, logs.stdout + logs.stderr
    # A named file that is not there: refused before anything reaches the cluster.
    missing = str(site / "nope-yarn-site.xml")
    bad = submit(tony, tmp_path, **{"tony.application.yarn-conf-path": missing})
    assert bad.returncode == 2, bad.stdout + bad.stderr
    assert (f'tony.application.yarn-conf-path = "{missing}" (from {tmp_path / "tony.xml"}): '
            "no such file") in bad.stderr, bad.stderr
    assert app_id_from(bad.stdout) is None, bad.stdout


def test_the_job_file_can_be_on_hdfs(minicluster, tmp_path):
    # TonY reads a --conf_file with a scheme through its file system: hdfs:///path on the
    # cluster's default file system, read over WebHDFS; errors name the URI.
    from minicluster import hdfs_put
    xml = tony_xml(str(tmp_path / "hdfs-tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "2",
        "tony.worker.memory": "256m", "tony.am.memory": "256m",
        "tony.application.name": "from-hdfs"})
    hdfs_put(minicluster, "/jobs/tony.xml", open(xml, "rb").read())
    tony = yarn_tony(tmp_path, minicluster)
    write(str(tmp_path / "src" / "job.py"), SCRIPT)
    base = ("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
            "--src_dir", str(tmp_path / "src"))
    r = tony.run(*base, "--conf_file", "hdfs:///jobs/tony.xml", timeout=300)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    app_id = app_id_from(r.stdout)
    assert rm_app(minicluster, app_id)["name"] == "from-hdfs"
    assert [t["state"] for t in tony.status(app_id)["tasks"]] == ["SUCCEEDED", "SUCCEEDED"]
    # A missing file names the URI and HDFS's reason; another file system is refused with the
    # cluster's own; nothing is submitted either way.
    missing = tony.run(*base, "--conf_file", "hdfs:///jobs/nope.xml", timeout=120)
    assert missing.returncode == 2, missing.stdout + missing.stderr
    assert "--conf_file hdfs:///jobs/nope.xml: " in missing.stderr, missing.stderr
    assert "FileNotFoundException" in missing.stderr or "not found" in missing.stderr.lower(), \
        missing.stderr
    other = tony.run(*base, "--conf_file", "hdfs://elsewhere:8020/jobs/tony.xml", timeout=120)
    assert other.returncode == 2, other.stdout + other.stderr
    assert "the cluster's default file system only (fs.defaultFS = hdfs://" in other.stderr, \
        other.stderr
    assert app_id_from(missing.stdout) is None and app_id_from(other.stdout) is None
