"""The fit check both engines share (engine/fit_check.h), on YARN: every case of
tests/lib/fit_cases.txt that the minicluster (2 NodeManagers of 4096 MB, 8 vcores, 2 GPUs) can
express is refused by a real `tony submit` with exit code 2, naming the key, its value and the
file or flag that set it, before any application reaches the ResourceManager. A refusal comes
before any container, so one cluster serves the whole table quickly."""
import json
import urllib.request

import pytest

import fit_cases
from minicluster import site_property
from tonytest import SYSTEM_PYTHON, Tony, processes_mentioning, tony_xml, write


def apps_submitted(conf_dir):
    """The RM's own count of submitted applications (its REST API), independent of tony's."""
    web = site_property(conf_dir, "yarn-site.xml", "yarn.resourcemanager.webapp.address")
    req = urllib.request.Request(f"http://{web}/ws/v1/cluster/metrics",
                                 headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)["clusterMetrics"]["appsSubmitted"]


@pytest.mark.parametrize("case", fit_cases.load("yarn"), ids=lambda c: c["name"])
def test_a_job_that_can_never_fit_is_refused_naming_key_and_source(minicluster, tmp_path, case):
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = minicluster
    before = apps_submitted(minicluster)
    src = tmp_path / "src"
    write(str(src / "job.py"), "print('never runs')\n")
    xml = tony_xml(str(tmp_path / "tony.xml"),
                   {"tony.application.framework": "pytorch", **case["file"]})
    flags = [a for k, v in case["flag"].items() for a in ("--conf", f"{k}={v}")]
    r = tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", xml, *flags, timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "tony: error: the job can never run on this cluster: " in r.stderr, r.stderr
    assert "tony.application.skip-fit-check=true" in r.stderr, r.stderr
    for text in fit_cases.expected(case, xml):
        assert text in r.stderr, f"{text!r} not in: {r.stderr}"
    # Nothing reached the RM, no job record, no process of this job's home left.
    assert "submitted" not in r.stdout, r.stdout
    assert apps_submitted(minicluster) == before
    assert tony.jobs() == [], tony.jobs()
    assert not processes_mentioning(tony.home)
