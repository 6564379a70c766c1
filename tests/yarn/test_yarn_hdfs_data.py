"""HDFS data for tasks on an open (SIMPLE) YARN minicluster: where the container's environment
names a Hadoop installation, the task's CLASSPATH is `hadoop classpath --glob` (TonY's
treatment), and a JVM reader using Hadoop's FileSystem API reads hdfs:// with it; the same task
reads over WebHDFS from TONY_WEBHDFS_URL. The installation is a stand-in: bin/hadoop answers
`classpath --glob` with the conf dir and the minicluster's own Hadoop 3.5.0 jars, as a real one
prints its conf dir and jars."""
import os
import re
import subprocess
import tarfile

from tonytest import Tony, tony_xml, write
from minicluster import hdfs_put, site_property

MINICLUSTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "minicluster")

JAVA_READER = r"""
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IOUtils;

public class HdfsCat {
  public static void main(String[] args) throws Exception {
    Path path = new Path(args[0]);
    try (FSDataInputStream in = path.getFileSystem(new Configuration()).open(path)) {
      System.out.print("jvm read: ");
      IOUtils.copyBytes(in, System.out, 4096, false);
    }
  }
}
"""


def test_a_task_reads_hdfs_through_the_hadoop_classpath(minicluster, tmp_path):
    hdfs_put(minicluster, "/data/insecure.txt", b"open cluster data\n")
    jars = open(os.path.join(MINICLUSTER, "target", "classpath.txt")).read().strip()
    classes = tmp_path / "classes"
    write(str(classes / "HdfsCat.java"), JAVA_READER)
    subprocess.run(["javac", "-cp", jars, "-d", str(classes), str(classes / "HdfsCat.java")],
                   check=True)
    home = tmp_path / "hadoop-home"
    (home / "lib" / "native").mkdir(parents=True)
    write(str(home / "bin" / "hadoop"),
          "#!/bin/sh\n[ \"$1 $2\" = \"classpath --glob\" ] || exit 2\n"
          f"echo \"$HADOOP_CONF_DIR:{jars}\"\n", mode=0o755)
    fs = site_property(minicluster, "core-site.xml", "fs.defaultFS")
    src = tmp_path / "src"
    write(str(src / "read.sh"),
          "echo HADOOP_HDFS_HOME=$HADOOP_HDFS_HOME\n"
          "echo CLASSPATH=$CLASSPATH\n"
          f"java -cp \"$CLASSPATH:{classes}\" HdfsCat {fs}/data/insecure.txt || exit 1\n"
          "echo \"webhdfs read: $(curl -sfL \"$TONY_WEBHDFS_URL/data/insecure.txt?op=OPEN"
          "&user.name=tony\")\"\n")
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "1",
        "tony.worker.memory": "256m", "tony.am.memory": "256m",
        "tony.containers.envs": f"HADOOP_HOME={home},HADOOP_CONF_DIR={minicluster}"})
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = minicluster
    r = tony.run("submit", "--executes", "read.sh", "--python_binary_path", "/bin/bash",
                 "--src_dir", str(src), "--conf_file", xml, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    logs = tony.run("logs", tony.jobs()[-1], "--task", "worker:0", "--stream", "stdout")
    out = logs.stdout + logs.stderr
    assert "jvm read: open cluster data" in out, out
    assert "webhdfs read: open cluster data" in out, out
    assert f"HADOOP_HDFS_HOME={home}" in out, out
    assert re.search(r"CLASSPATH=\S*hadoop-client-api-3\.5\.0\.jar", out), out


def stand_in_hadoop_tarball(tmp_path, jars):
    """A Hadoop tarball (top-level hadoop-3.5.0/, as Apache's) whose bin/hadoop answers
    `classpath --glob` with its own etc/hadoop and the minicluster's jars."""
    home = tmp_path / "dist" / "hadoop-3.5.0"
    (home / "lib" / "native").mkdir(parents=True)
    write(str(home / "bin" / "hadoop"),
          "#!/bin/sh\n[ \"$1 $2\" = \"classpath --glob\" ] || exit 2\n"
          "here=$(cd \"$(dirname \"$0\")/..\" && pwd)\n"
          f"echo \"$here/etc/hadoop:{jars}\"\n", mode=0o755)
    tarball = tmp_path / "hadoop-3.5.0.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(home, arcname="hadoop-3.5.0")
    return tarball.read_bytes()


def reader_job(minicluster, tmp_path, props):
    """Submits a one-worker job whose task reads /data/own.txt with a JVM reader on its CLASSPATH
    (no Hadoop in the container's environment); returns (submit result, the task's stdout)."""
    hdfs_put(minicluster, "/data/own.txt", b"read with the job's hadoop\n")
    jars = open(os.path.join(MINICLUSTER, "target", "classpath.txt")).read().strip()
    classes = tmp_path / "classes"
    write(str(classes / "HdfsCat.java"), JAVA_READER)
    subprocess.run(["javac", "-cp", jars, "-d", str(classes), str(classes / "HdfsCat.java")],
                   check=True)
    fs = site_property(minicluster, "core-site.xml", "fs.defaultFS")
    src = tmp_path / "src"
    write(str(src / "read.sh"),
          "echo HADOOP_HDFS_HOME=$HADOOP_HDFS_HOME\necho PWD=$PWD\necho CLASSPATH=$CLASSPATH\n"
          f"java -cp \"$CLASSPATH:{classes}\" HdfsCat {fs}/data/own.txt || exit 1\n")
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "1",
        "tony.worker.memory": "256m", "tony.am.memory": "256m",
        "tony.containers.envs": f"HADOOP_CONF_DIR={minicluster}", **props})
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = minicluster
    r = tony.run("submit", "--executes", "read.sh", "--python_binary_path", "/bin/bash",
                 "--src_dir", str(src), "--conf_file", xml, timeout=300)
    logs = tony.run("logs", tony.jobs()[-1], "--task", "worker:0", "--stream", "stdout")
    return r, logs.stdout + logs.stderr


def test_a_task_reads_hdfs_with_the_jobs_own_hadoop(minicluster, tmp_path):
    """TonY's tony.application.hadoop.location: a tarball on HDFS, localized into the task's
    container as an archive; its bin/hadoop gives the CLASSPATH the JVM reader uses."""
    jars = open(os.path.join(MINICLUSTER, "target", "classpath.txt")).read().strip()
    hdfs_put(minicluster, "/apps/hadoop-3.5.0.tar.gz", stand_in_hadoop_tarball(tmp_path, jars))
    r, out = reader_job(minicluster, tmp_path, {
        "tony.application.hadoop.location": "hdfs:///apps/hadoop-3.5.0.tar.gz#hadoop"})
    assert r.returncode == 0, r.stdout + r.stderr + out
    assert "jvm read: read with the job's hadoop" in out, out
    pwd = re.search(r"^PWD=(\S+)$", out, re.M).group(1)
    assert f"HADOOP_HDFS_HOME={pwd}/hadoop/hadoop-3.5.0" in out, out
    assert re.search(rf"CLASSPATH={re.escape(pwd)}/hadoop/hadoop-3\.5\.0/etc/hadoop:\S*"
                     r"hadoop-client-api-3\.5\.0\.jar", out), out


def test_a_task_reads_hdfs_with_the_jobs_hadoop_classpath(minicluster, tmp_path):
    """TonY's tony.application.hadoop.classpath: the task's CLASSPATH, with no Hadoop at all in
    its container; a dir/* entry is globbed into its jars."""
    jars = open(os.path.join(MINICLUSTER, "target", "classpath.txt")).read().strip().split(":")
    api = next(j for j in jars if "hadoop-client-api" in j)
    others = [j for j in jars if j != api]
    r, out = reader_job(minicluster, tmp_path, {
        "tony.application.hadoop.classpath":
            ",".join([os.path.dirname(api) + "/hadoop-client-api-*.jar"] + others)})
    assert r.returncode == 0, r.stdout + r.stderr + out
    assert "jvm read: read with the job's hadoop" in out, out
    assert f"CLASSPATH={api}:" in out, out
