"""What the README promises and nothing else showed: the site file read by the real binary,
`--container_env` end to end, the coordinator's address and the session id in the task's
environment, job-id prefixes, and distinct GPUs per task on the local engine."""
import json
import os

from tonytest import SYSTEM_PYTHON, assert_nothing_left, tony_xml, write

ENV_DUMP = """
import json, os, sys
keys = sys.argv[1].split(",")
out = os.path.join(os.environ["TONY_LOG_DIR"], "env.json")
json.dump({k: os.environ.get(k) for k in keys}, open(out, "w"))
"""


def run_dump(tony, tmp_path, props, keys, *extra):
    src = tmp_path / "src"
    write(str(src / "dump.py"), ENV_DUMP)
    conf = tony_xml(str(tmp_path / "tony.xml"), dict({
        "tony.worker.memory": "256m", "tony.application.framework": "generic"}, **props))
    r = tony.run("submit", "--executes", "dump.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--task_params", ",".join(keys), "--src_dir", str(src), "--conf_file", conf,
                 *extra)
    return r


def task_env(task):
    return json.load(open(os.path.join(task["log_dir"], "env.json")))


def test_the_site_file_overrides_the_job_file_unless_the_job_file_marks_it_final(tony, tmp_path):
    write(os.path.join(tony.home, "conf", "tony-site.xml"), """<configuration>
  <property><name>tony.worker.instances</name><value>2</value></property>
  <property><name>tony.execution.envs</name><value>FROM_SITE=admin</value></property>
</configuration>
""")
    r = run_dump(tony, tmp_path, {"tony.worker.instances": "1"}, ["FROM_SITE"])
    assert r.returncode == 0, r.stdout + r.stderr
    tasks = tony.status()["tasks"]
    assert len(tasks) == 2, tasks  # the site file's 2, not the job file's 1
    assert all(task_env(t)["FROM_SITE"] == "admin" for t in tasks)

    # <final>true</final> in the job file keeps the job's value.
    final_xml = tmp_path / "final.xml"
    write(str(final_xml), """<configuration>
  <property><name>tony.worker.instances</name><value>1</value><final>true</final></property>
  <property><name>tony.worker.memory</name><value>256m</value></property>
  <property><name>tony.application.framework</name><value>generic</value></property>
</configuration>
""")
    before = set(tony.jobs())
    r = tony.run("submit", "--executes", "true", "--conf_file", str(final_xml))
    assert r.returncode == 0, r.stdout + r.stderr
    # The second job by its id: job ids of one second need not sort by start time.
    (second,) = set(tony.jobs()) - before
    assert len(tony.status(second)["tasks"]) == 1
    assert_nothing_left(tony.home)


def test_container_env_and_the_coordinator_address_reach_the_task(tony, tmp_path):
    keys = ["FROM_CONTAINER_ENV", "FROM_SHELL_ENV", "AM_HOST", "AM_PORT", "SESSION_ID", "JOB_ID",
            "ATTEMPT_NUMBER"]
    r = run_dump(tony, tmp_path, {"tony.worker.instances": "1"}, keys,
                 "--container_env", "FROM_CONTAINER_ENV=c v", "--shell_env", "FROM_SHELL_ENV=s")
    assert r.returncode == 0, r.stdout + r.stderr
    job_id = tony.jobs()[-1]
    env = task_env(tony.status()["tasks"][0])
    assert env["FROM_CONTAINER_ENV"] == "c v" and env["FROM_SHELL_ENV"] == "s", env
    am = json.load(open(os.path.join(tony.job_dir(), "am.json")))
    assert (env["AM_HOST"], env["AM_PORT"]) == (am["host"], str(am["port"])), (env, am)
    assert env["JOB_ID"] == job_id, env
    assert env["SESSION_ID"] == "0" and env["ATTEMPT_NUMBER"] == "0", env


def test_a_unique_prefix_names_a_job_and_an_ambiguous_one_is_refused(tony, tmp_path):
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "1", "tony.worker.memory": "256m"})
    for _ in range(2):
        r = tony.run("submit", "--executes", "true", "--conf_file", conf)
        assert r.returncode == 0, r.stdout + r.stderr
    first, second = tony.jobs()
    common = os.path.commonprefix([first, second])
    unique = first[:len(common) + 1]
    r = tony.run("status", unique)
    assert r.returncode == 0 and first in r.stdout and second not in r.stdout, r.stdout + r.stderr
    r = tony.run("status", common)
    assert r.returncode != 0, r.stdout
    assert "ambiguous" in r.stderr and first in r.stderr and second in r.stderr, r.stderr


def fake_nvidia_smi(tmp_path, count):
    """Puts an `nvidia-smi` that lists `count` GPUs first on PATH: this machine has no GPU, and
    tony's local engine learns the machine's GPUs from `nvidia-smi -L` alone."""
    bin_dir = tmp_path / "fake-bin"
    lines = "".join(f"echo 'GPU {i}: Test GPU (UUID: GPU-{i:04d})'\n" for i in range(count))
    write(str(bin_dir / "nvidia-smi"), "#!/bin/sh\n[ \"$1\" = -L ] || exit 2\n" + lines, 0o755)
    return str(bin_dir)


def test_tasks_that_ask_for_gpus_get_distinct_devices(tony, tmp_path):
    tony.env["PATH"] = fake_nvidia_smi(tmp_path, 3) + ":" + tony.env["PATH"]
    r = run_dump(tony, tmp_path, {"tony.worker.instances": "3", "tony.worker.gpus": "1"},
                 ["CUDA_VISIBLE_DEVICES"])
    assert r.returncode == 0, r.stdout + r.stderr
    devices = sorted(task_env(t)["CUDA_VISIBLE_DEVICES"] for t in tony.status()["tasks"])
    assert devices == ["0", "1", "2"], devices


def test_tony_gpu_exec_path_names_the_tool_that_lists_the_gpus(tony, tmp_path):
    # Not on PATH, under another name: found only through the key.
    tool = os.path.join(fake_nvidia_smi(tmp_path, 2), "nvidia-smi")
    renamed = str(tmp_path / "tools" / "my-gpu-lister")
    os.makedirs(os.path.dirname(renamed))
    os.rename(tool, renamed)
    r = run_dump(tony, tmp_path, {"tony.worker.instances": "2", "tony.worker.gpus": "1",
                                  "tony.gpu-exec-path": renamed}, ["CUDA_VISIBLE_DEVICES"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "tony.gpu-exec-path" not in r.stderr, r.stderr  # applied: no "not supported" warning
    devices = sorted(task_env(t)["CUDA_VISIBLE_DEVICES"] for t in tony.status()["tasks"])
    assert devices == ["0", "1"], devices


def test_more_gpus_than_the_machine_lists_are_refused(tony, tmp_path):
    tony.env["PATH"] = fake_nvidia_smi(tmp_path, 1) + ":" + tony.env["PATH"]
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "2", "tony.worker.memory": "256m", "tony.worker.gpus": "1"})
    r = tony.run("submit", "--executes", "true", "--conf_file", conf)
    assert r.returncode != 0
    assert f"tony.worker.gpus = 1 from {conf}" in r.stderr, r.stderr
    assert "(512 MB, 2 GPUs in all)" in r.stderr and "this machine has" in r.stderr, r.stderr
    assert tony.jobs() == [], "a refused job must leave no record"
