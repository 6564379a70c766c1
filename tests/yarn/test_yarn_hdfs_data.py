"""HDFS data for tasks on an open (SIMPLE) YARN minicluster: where the container's environment
names a Hadoop installation, the task's CLASSPATH is `hadoop classpath --glob` (TonY's
treatment), and a JVM reader using Hadoop's FileSystem API reads hdfs:// with it; the same task
reads over WebHDFS from TONY_WEBHDFS_URL. The installation is a stand-in: bin/hadoop answers
`classpath --glob` with the conf dir and the minicluster's own Hadoop 3.5.0 jars, as a real one
prints its conf dir and jars."""
import os
import re
import subprocess

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
