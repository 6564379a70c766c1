"""Bad input gets a clear error naming the file, key or flag, exit code 2, and starts nothing."""
import os

import pytest

from tonytest import SYSTEM_PYTHON, processes_mentioning, tony_xml, write


def submit(tony, tmp_path, conf_props=None, conf_text=None, script="job.py", extra=()):
    src = tmp_path / "src"
    write(str(src / "job.py"), "print('hi')\n")
    conf = str(tmp_path / "tony.xml")
    if conf_text is not None:
        write(conf, conf_text)
    else:
        tony_xml(conf, conf_props or {"tony.worker.instances": "1", "tony.worker.memory": "256m"})
    return tony.run("submit", "--executes", script, "--python_binary_path", SYSTEM_PYTHON,
                    "--src_dir", str(src), "--conf_file", conf, *extra)


def assert_refused(tony, r, *fragments):
    assert r.returncode == 2, r.stdout + r.stderr
    for f in fragments:
        assert f in r.stderr, f"{f!r} not in: {r.stderr}"
    assert tony.jobs() == [], "a refused job must not create a job"
    assert not processes_mentioning(tony.home)


def test_malformed_xml_names_the_file_and_line(tony, tmp_path):
    r = submit(tony, tmp_path, conf_text="<configuration>\n<property><name>x</name>\n</configuration>\n")
    assert_refused(tony, r, "tony.xml:", "malformed XML")


def test_invalid_value_names_key_file_value_and_what_is_accepted(tony, tmp_path):
    r = submit(tony, tmp_path, {"tony.worker.instances": "2", "tony.worker.memory": "lots"})
    assert_refused(tony, r, "tony.worker.memory", '"lots"', "tony.xml", "memory size")


def test_invalid_override_names_conf_flag(tony, tmp_path):
    r = submit(tony, tmp_path, extra=("--conf", "tony.worker.instances=two"))
    assert_refused(tony, r, "tony.worker.instances", "two", "--conf")


def test_unknown_key_warns_with_the_closest_known_key(tony, tmp_path):
    r = submit(tony, tmp_path, {"tony.worker.instances": "1", "tony.worker.memory": "256m",
                                "tony.worker.memroy": "1g"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "tony.worker.memroy" in r.stderr and "did you mean tony.worker.memory" in r.stderr


def test_missing_script_is_refused_before_anything_starts(tony, tmp_path):
    r = submit(tony, tmp_path, script="models/train.py")
    assert_refused(tony, r, "--executes models/train.py", "no such file in --src_dir")


def test_missing_src_dir_and_conf_file(tony, tmp_path):
    r = tony.run("submit", "--executes", "job.py", "--src_dir", str(tmp_path / "nope"))
    assert_refused(tony, r, "--src_dir", "no such file or directory")
    r = tony.run("submit", "--executes", "true", "--conf_file", str(tmp_path / "nope.xml"))
    assert_refused(tony, r, "--conf_file", "no such file")


def test_unknown_flag_suggests_the_right_one(tony, tmp_path):
    r = tony.run("submit", "--execute", "x.py")
    assert_refused(tony, r, "unknown flag --execute", "did you mean --executes")


def test_no_tasks_is_an_error(tony, tmp_path):
    r = submit(tony, tmp_path, {"tony.worker.instances": "0"})
    assert_refused(tony, r, "no tasks", "tony.<role>.instances")


def test_more_memory_than_the_machine_has_is_refused(tony, tmp_path):
    r = submit(tony, tmp_path, {"tony.worker.instances": "2", "tony.worker.memory": "100000g"})
    assert_refused(tony, r, "MB of memory", "this machine has")


def test_more_cores_than_the_machine_has_is_refused(tony, tmp_path):
    r = submit(tony, tmp_path, {"tony.worker.instances": "1", "tony.worker.memory": "256m",
                                "tony.worker.vcores": "4096"})
    assert_refused(tony, r, "4096 vcores", "tony.local.vcores")


def test_gpus_on_a_machine_without_gpus_are_refused(tony, tmp_path):
    if os.path.exists("/dev/nvidia0"):
        pytest.skip("this machine has GPUs; the refusal is for machines without")
    r = submit(tony, tmp_path, {"tony.worker.instances": "1", "tony.worker.memory": "256m",
                                "tony.worker.gpus": "1"})
    assert_refused(tony, r, "tony.worker.gpus=1", "this machine has none")


def test_standalone_with_three_workers_is_refused(tony, tmp_path):
    r = submit(tony, tmp_path, {"tony.worker.instances": "3", "tony.worker.memory": "256m",
                                "tony.application.framework": "standalone"})
    assert_refused(tony, r, "standalone", "exactly one task")


def test_docker_without_an_image_is_refused_naming_the_keys(tony, tmp_path):
    r = submit(tony, tmp_path, {"tony.worker.instances": "1", "tony.worker.memory": "256m",
                                "tony.docker.enabled": "true"})
    assert_refused(tony, r, "tony.docker.enabled", "role worker has no image",
                   "tony.docker.worker.image or tony.docker.containers.image")


def test_docker_on_the_local_engine_warns_that_tasks_run_as_plain_processes(tony, tmp_path):
    r = submit(tony, tmp_path, {"tony.worker.instances": "1", "tony.worker.memory": "256m",
                                "tony.docker.enabled": "true",
                                "tony.docker.containers.image": "team/train:1"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "tony.docker.enabled is true, but the local engine runs every task" in r.stderr, r.stderr
