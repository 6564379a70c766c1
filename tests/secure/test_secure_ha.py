"""A Kerberized highly available cluster (start.sh --ha: two ResourceManagers, and an HDFS
nameservice "tonyns" whose first NameNode is dead, whose second is a standby and whose third is
active): the client goes round the RMs and NameNodes with Kerberos, the HDFS token is the
nameservice's (service ha-hdfs:tonyns), with which the NodeManagers localize the job's
hdfs://tonyns/ files and the task gets it; `hdfs://tonyns` in tony.other.namenodes is resolved
from hdfs-site.xml, not asked as a host. Its own cluster."""
import os
import shutil

import pytest

from minicluster import edit_site, site_property
from secure_cluster import running_secure_minicluster
from tonytest import SYSTEM_PYTHON, Tony, tony_xml, write, yarn_logs


@pytest.fixture(scope="module")
def cluster():
    with running_secure_minicluster("authentication", flags=("--ha",)) as sc:
        yield sc


SCRIPT = """
import os
services = sorted(p.split("=", 1)[0] for p in os.environ["TONY_HDFS_DELEGATION_TOKENS"].split(","))
print("hdfs token services:", " ".join(services), flush=True)
"""


def test_a_job_runs_on_a_kerberized_ha_cluster_with_the_nameservices_token(tmp_path, cluster):
    # The client's site files name the nameservice (the daemons' name the active NameNode).
    conf = tmp_path / "hadoop-conf"
    conf.mkdir()
    for name in ("core-site.xml", "hdfs-site.xml", "yarn-site.xml"):
        shutil.copy(os.path.join(cluster.conf_dir, name), conf / name)
    edit_site(str(conf / "core-site.xml"), {"fs.defaultFS": "hdfs://tonyns"})
    assert site_property(str(conf), "hdfs-site.xml", "dfs.ha.namenodes.tonyns")
    tony = Tony(tmp_path / "home").use(cluster.env())
    tony.env["HADOOP_CONF_DIR"] = str(conf)
    write(str(tmp_path / "src" / "job.py"), SCRIPT)
    xml = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "pytorch", "tony.worker.instances": "1",
        "tony.worker.memory": "256m", "tony.am.memory": "256m",
        "tony.other.namenodes": "hdfs://tonyns"})
    r = tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(tmp_path / "src"), "--conf_file", xml, timeout=300)
    out = r.stdout + r.stderr
    logs = yarn_logs(cluster.conf_dir, names=("stdout",))
    assert r.returncode == 0, out + logs
    assert "warning" not in r.stderr, r.stderr  # the nameservice was resolved, not asked as a host
    assert "hdfs token services: ha-hdfs:tonyns" in logs, out + logs
