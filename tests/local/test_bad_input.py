"""Bad input gets a clear error naming the file, key or flag, exit code 2, and starts nothing."""
import os

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


def test_more_memory_than_the_machine_has_is_refused(tony, tmp_path):
    r = submit(tony, tmp_path, {"tony.worker.instances": "2", "tony.worker.memory": "100000g"})
    xml = str(tmp_path / "tony.xml")
    assert_refused(tony, r, f"tony.worker.memory = 100000g from {xml}", "this machine has",
                   "tony.local.memory")


def test_more_vcores_than_cores_runs_with_one_warning_line(tony, tmp_path):
    # TonY's default shape (chief, 2 workers, ps: 4 one-vcore tasks) on any machine with fewer
    # cores; before, it was refused unless tony.local.vcores was set.
    cores = len(os.sched_getaffinity(0))
    r = submit(tony, tmp_path, {"tony.worker.instances": "1", "tony.worker.memory": "256m",
                                "tony.worker.vcores": str(cores + 3)})
    assert r.returncode == 0, r.stdout + r.stderr
    warning = (f"tony: warning: the job asks for {cores + 3} vcores in all (tony.<role>.vcores x "
               f"tony.<role>.instances) but this machine has {cores} core")
    lines = [l for l in r.stderr.splitlines() if "vcores in all" in l]
    assert len(lines) == 1 and lines[0].startswith(warning), r.stderr
    assert f"set tony.local.vcores={cores + 3}" in lines[0]
    r = submit(tony, tmp_path, {"tony.worker.instances": "1", "tony.worker.memory": "256m",
                                "tony.worker.vcores": str(cores + 3),
                                "tony.local.vcores": str(cores + 3)})
    assert r.returncode == 0 and "vcores in all" not in r.stderr, r.stderr


def test_gpus_on_a_machine_without_gpus_are_refused(tony, tmp_path):
    # The local engine counts GPUs with `nvidia-smi -L`: one that lists none stands for a
    # machine without GPUs here and on a GPU machine alike.
    fake = write(str(tmp_path / "fake-bin" / "nvidia-smi"), "#!/bin/sh\nexit 0\n", 0o755)
    tony.env["PATH"] = os.path.dirname(fake) + ":" + tony.env["PATH"]
    r = submit(tony, tmp_path, {"tony.worker.instances": "1", "tony.worker.memory": "256m",
                                "tony.worker.gpus": "1"})
    assert_refused(tony, r, f"tony.worker.gpus = 1 from {tmp_path / 'tony.xml'}",
                   "this machine has no GPUs")


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


def test_unknown_memory_unit_is_refused_naming_key_file_value_and_forms(tony, tmp_path):
    # Before: "4x" lost its "x" and ran as 4 MB.
    r = submit(tony, tmp_path, {"tony.worker.instances": "1", "tony.worker.memory": "4x"})
    assert_refused(tony, r, 'tony.worker.memory = "4x"', str(tmp_path / "tony.xml"),
                   "optional unit k, m, g or t")


def test_duration_with_a_unit_suffix_is_refused(tony, tmp_path):
    r = submit(tony, tmp_path, extra=("--conf", "tony.task.heartbeat-interval-ms=10s"))
    assert_refused(tony, r, 'tony.task.heartbeat-interval-ms = "10s" (from --conf)',
                   "an integer number of milliseconds")


def test_conf_file_that_is_a_directory_says_so(tony, tmp_path):
    d = tmp_path / "confdir"
    d.mkdir()
    r = tony.run("submit", "--executes", "true", "--conf_file", str(d))
    assert_refused(tony, r, str(d), "is a directory")
    assert "malformed XML" not in r.stderr


def test_endless_or_huge_conf_file_is_refused_without_reading_it_all(tony, tmp_path):
    # Before: /dev/zero was read without bound (2 GB of RSS in 5 s).
    r = tony.run("submit", "--executes", "true", "--conf_file", "/dev/zero", timeout=20)
    assert_refused(tony, r, "/dev/zero", "larger than 16777216 bytes")
    big = tmp_path / "big.xml"
    with open(big, "w") as f:
        f.write("<configuration>\n" + " " * (17 << 20) + "</configuration>\n")
    r = tony.run("submit", "--executes", "true", "--conf_file", str(big))
    assert_refused(tony, r, str(big), "larger than 16777216 bytes")


def test_src_dir_that_is_not_a_zip_is_refused_at_submit(tony, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("just some notes\n")
    r = tony.run("submit", "--executes", "true", "--src_dir", str(notes))
    assert_refused(tony, r, "--src_dir " + str(notes), "not a valid zip archive", "unzip -t")


def corrupt_zip(tmp_path, name):
    """A zip whose directory lists fine (unzip -l) but whose data fails its CRC (unzip -t)."""
    import zipfile
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("bin/python", "x" * 4096)
    data = bytearray(path.read_bytes())
    data[100] ^= 0xFF  # inside the stored entry's data
    path.write_bytes(bytes(data))
    return path


def test_src_dir_and_venv_zips_that_fail_unzip_t_are_refused(tony, tmp_path):
    bad = corrupt_zip(tmp_path, "src.zip")
    r = tony.run("submit", "--executes", "true", "--src_dir", str(bad))
    assert_refused(tony, r, "--src_dir " + str(bad), "not a valid zip archive", "bin/python")
    venv = corrupt_zip(tmp_path, "venv.zip")
    r = tony.run("submit", "--executes", "true", "--python_venv", str(venv))
    assert_refused(tony, r, "--python_venv " + str(venv), "not a valid zip archive", "bin/python")


def test_unsupported_key_warns_by_name_and_the_job_still_runs(tony, tmp_path):
    # Before: such a key was accepted and silently ignored.
    r = submit(tony, tmp_path, extra=("--conf", "tony.am.node-label=gpu"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert ('tony: warning: tony.am.node-label = "gpu" (from --conf) is not supported by tony and '
            "has no effect: the AM container gets tony.application.node-label only") in r.stderr, \
        r.stderr


def test_keys_from_articles_warn_naming_the_right_key_or_flag(tony, tmp_path):
    r = submit(tony, tmp_path, extra=("--conf", "tony.docker.image=team/train:1",
                                      "--conf", "tony.application.virtualenv.zip=venv.zip"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "tony.docker.image (from --conf); TonY's keys are tony.docker.containers.image" in r.stderr
    assert "tony.application.virtualenv.zip (from --conf); ship a virtualenv with --python_venv" \
        in r.stderr


def test_an_unreachable_resource_manager_is_named_after_the_retries_asked_for(tony, tmp_path):
    # TonY's tony.application.num-client-rm-connect-retries: 1 retry is 2 connection attempts
    # (before: always 10, about 26 s, whatever the job file said).
    import socket
    with socket.socket() as s:  # a port nobody listens on: bound once, then closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    conf_dir = tmp_path / "hadoop-conf"
    write(str(conf_dir / "core-site.xml"), "<configuration><property><name>fs.defaultFS</name>"
          f"<value>hdfs://127.0.0.1:{port}</value></property></configuration>")
    write(str(conf_dir / "yarn-site.xml"), "<configuration><property><name>"
          f"yarn.resourcemanager.address</name><value>127.0.0.1:{port}</value></property>"
          "</configuration>")
    tony.env["HADOOP_CONF_DIR"] = str(conf_dir)
    r = submit(tony, tmp_path, extra=("--engine", "yarn", "--conf",
                                      "tony.application.num-client-rm-connect-retries=1"))
    assert r.returncode != 0, r.stdout + r.stderr
    assert f"asking the ResourceManager at 127.0.0.1:{port} for an application" in r.stderr, \
        r.stderr
    assert "giving up after 2 connection attempts" in r.stderr, r.stderr
    assert "tony.application.num-client-rm-connect-retries sets how often" in r.stderr, r.stderr
    assert str(conf_dir / "yarn-site.xml") in r.stderr, r.stderr
    assert "unknown" not in r.stderr and "not supported" not in r.stderr, r.stderr
    assert tony.jobs() == [], "no application id, so no job record"
    assert not processes_mentioning(tony.home)


def test_horovod_refuses_the_jobs_own_driver_keys_outside_the_debug_mode(tony, tmp_path):
    # As TonY: tony runs the horovod driver; a job file's tony.driver.* takes the debug mode.
    conf = str(tmp_path / "tony.xml")
    r = submit(tony, tmp_path, {"tony.application.framework": "horovod",
                                "tony.worker.instances": "2", "tony.worker.memory": "256m",
                                "tony.driver.memory": "1g"})
    assert_refused(tony, r, f"tony.driver.memory (from {conf}): tony.application.framework = "
                            "horovod runs its own driver task; set tony.horovod.driver.mode.debug "
                            "= true to run yours (tony.driver.command)")
    r = submit(tony, tmp_path, {"tony.application.framework": "horovod",
                                "tony.worker.instances": "2", "tony.worker.memory": "256m",
                                "tony.horovod.driver.mode.debug": "true"})
    assert_refused(tony, r, f"tony.horovod.driver.mode.debug = true (from {conf}) needs "
                            "tony.driver.command")
