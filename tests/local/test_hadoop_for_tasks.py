"""The job's own Hadoop for its tasks (TonY's tony.application.hadoop.location and
tony.application.hadoop.classpath) and `tony submit --debug`, on the local engine with real
processes. The Hadoop installations here are stand-ins: a bin/hadoop that answers
`classpath --glob` as a real one does (its conf dir and jars), which is what the executor runs;
tests/yarn/test_yarn_hdfs_data.py reads HDFS with a JVM through the same keys on YARN."""
import os
import tarfile
import zipfile

from tonytest import Tony, tony_xml, write


def stand_in_hadoop(root, top, answer):
    """A Hadoop tarball at root/hadoop.tar.gz whose top-level directory `top` has a bin/hadoop
    printing `answer` for `classpath --glob` (and failing otherwise) and a lib/native."""
    home = root / "build" / top
    write(str(home / "bin" / "hadoop"),
          f"#!/bin/sh\n[ \"$1 $2\" = \"classpath --glob\" ] || exit 2\necho '{answer}'\n",
          mode=0o755)
    os.makedirs(home / "lib" / "native")
    tarball = root / "hadoop.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(home, arcname=top)
    return str(tarball)


def run_env_job(tony, tmp_path, props, *extra):
    src = tmp_path / "src"
    write(str(src / "show.sh"),
          "echo CLASSPATH=$CLASSPATH\necho HADOOP_HDFS_HOME=$HADOOP_HDFS_HOME\necho PWD=$PWD\n")
    xml = tony_xml(str(tmp_path / "tony.xml"), {"tony.worker.instances": "2", **props})
    return tony.run("submit", "--executes", "show.sh", "--python_binary_path", "/bin/bash",
                    "--src_dir", str(src), "--conf_file", xml, *extra)


def task_stdout(tony, index):
    r = tony.run("logs", tony.jobs()[-1], "--task", f"worker:{index}", "--stream", "stdout")
    assert r.returncode == 0, r.stdout + r.stderr
    return dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)


def test_every_task_gets_the_classpath_of_the_jobs_hadoop_tarball(tony, tmp_path):
    tarball = stand_in_hadoop(tmp_path, "hadoop-3.3.6", "/own/etc/hadoop:/own/common/a.jar")
    # The node's Hadoop, which the job's own must win over.
    node = tmp_path / "node-hadoop"
    write(str(node / "bin" / "hadoop"), "#!/bin/sh\necho /node/a.jar\n", mode=0o755)
    tony.env["HADOOP_HOME"] = str(node)
    r = run_env_job(tony, tmp_path, {"tony.application.hadoop.location": f"{tarball}#hadoop"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "not supported" not in r.stderr, r.stderr
    for index in (0, 1):
        env = task_stdout(tony, index)
        assert env["CLASSPATH"] == "/own/etc/hadoop:/own/common/a.jar", env
        assert env["HADOOP_HDFS_HOME"] == os.path.join(env["PWD"], "hadoop", "hadoop-3.3.6"), env


def test_the_jobs_classpath_is_the_tasks_with_its_globs_expanded(tony, tmp_path):
    jars = tmp_path / "jars"
    for jar in ("hadoop-common.jar", "hadoop-hdfs.jar"):
        write(str(jars / jar), "x")
    tony.env["JARS"] = str(jars)
    r = run_env_job(tony, tmp_path,
                    {"tony.application.hadoop.classpath": "$PWD/conf,${JARS}/*.jar"})
    assert r.returncode == 0, r.stdout + r.stderr
    env = task_stdout(tony, 1)
    assert env["CLASSPATH"] == (f"{env['PWD']}/conf:{jars}/hadoop-common.jar:"
                                f"{jars}/hadoop-hdfs.jar"), env


def test_a_bad_hadoop_location_is_refused_naming_the_key_and_nothing_starts(tony, tmp_path):
    r = run_env_job(tony, tmp_path,
                    {"tony.application.hadoop.location": str(tmp_path / "missing.tgz")})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "tony.application.hadoop.location" in r.stderr, r.stderr
    assert "no such file or directory" in r.stderr, r.stderr
    assert tony.jobs() == []
    r = run_env_job(tony, tmp_path, {"tony.application.hadoop.location": "hdfs:///apps/h.tgz"})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "tony.application.hadoop.location" in r.stderr and "--engine yarn" in r.stderr, r.stderr
    (tmp_path / "a-dir").mkdir()
    r = run_env_job(tony, tmp_path, {"tony.application.hadoop.location": str(tmp_path / "a-dir")})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "a directory; it names a Hadoop tarball" in r.stderr, r.stderr


def test_the_staged_job_goes_at_the_end_unless_debug(tony, tmp_path):
    venv = tmp_path / "venv.zip"
    with zipfile.ZipFile(venv, "w") as z:
        z.writestr("bin/marker", "x")
    r = run_env_job(tony, tmp_path, {}, "--python_venv", str(venv))
    assert r.returncode == 0, r.stdout + r.stderr
    job = tony.job_dir()
    assert not os.path.exists(os.path.join(job, "staging")), os.listdir(job)
    # The job's record stays: its status, configuration and logs.
    assert tony.run("logs", tony.jobs()[-1], "--task", "worker:0").returncode == 0
    assert os.path.exists(os.path.join(job, "tony-final.xml"))

    debug = Tony(tmp_path / "debug-home")
    r = run_env_job(debug, tmp_path, {}, "--python_venv", str(venv), "--debug")
    assert r.returncode == 0, r.stdout + r.stderr
    staging = os.path.join(debug.job_dir(), "staging")
    assert f"tony: --debug: the staged job is kept in {staging}" in r.stdout, r.stdout
    assert sorted(os.listdir(staging)) == ["tony_src.zip", "venv.zip"], os.listdir(staging)
