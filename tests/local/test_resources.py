"""tony.containers.resources, tony.<role>.resources and --hdfs_classpath on the local engine
(TonY's testTonyResourcesFlag): files, directories, #archive unpacked, ::NAME and #NAME links,
each role seeing only its own; what cannot be localized is refused at submit (exit 2)."""
import os
import zipfile

from tonytest import SYSTEM_PYTHON, processes_mentioning, tony_xml, write

CHECK = r"""
import os, sys
role = os.environ["JOB_NAME"]
def read(p):
    return open(p).read().strip()
assert read("extra.txt") == "extra", "a plain file"
assert read("conf/settings.ini") == "settings", "a directory"
assert read("env.zip/bin/tool") == "tool", "#archive unpacked under its own name"
assert read("env/bin/tool") == "tool", "::NAME#archive unpacked under NAME"
assert read("renamed.txt") == "extra", "#NAME link"
assert os.path.exists("ps-only.txt") == (role == "ps"), "a ps resource seen by " + role
print("resources ok in", role)
"""


def make_inputs(tmp_path):
    d = tmp_path / "res"
    write(str(d / "extra.txt"), "extra\n")
    write(str(d / "conf" / "settings.ini"), "settings\n")
    write(str(d / "ps-only.txt"), "ps\n")
    with zipfile.ZipFile(d / "env.zip", "w") as z:
        z.writestr("bin/tool", "tool\n")
    return d


def submit(tony, tmp_path, props, *extra):
    src = tmp_path / "src"
    write(str(src / "check.py"), CHECK)
    base = {"tony.application.framework": "tensorflow", "tony.worker.instances": "1",
            "tony.ps.instances": "1", "tony.worker.memory": "256m", "tony.ps.memory": "256m",
            "tony.application.untracked.jobtypes": ""}
    base.update(props)
    conf = tony_xml(str(tmp_path / "tony.xml"), base)
    return tony.run("submit", "--executes", "check.py", "--python_binary_path", SYSTEM_PYTHON,
                    "--src_dir", str(src), "--conf_file", conf, *extra)


def test_every_form_of_resource_reaches_the_tasks_that_asked(tony, tmp_path):
    d = make_inputs(tmp_path)
    r = submit(tony, tmp_path, {
        "tony.containers.resources": f"{d}/extra.txt,{d}/conf,{d}/env.zip#archive,"
                                     f"{d}/env.zip::env#archive",
        "tony.ps.resources": f"{d}/ps-only.txt"},
        "--conf", f"tony.containers.resources={d}/extra.txt#renamed.txt")
    assert r.returncode == 0, r.stdout + r.stderr
    for role in ("worker", "ps"):
        out = open(os.path.join(tony.task(role, 0)["log_dir"], "stdout")).read()
        assert f"resources ok in {role}" in out, out


def assert_refused(tony, r, *fragments):
    assert r.returncode == 2, r.stdout + r.stderr
    for f in fragments:
        assert f in r.stderr, f"{f!r} not in: {r.stderr}"
    assert tony.jobs() == []
    assert not processes_mentioning(tony.home)


def test_a_missing_resource_is_refused_naming_key_and_entry(tony, tmp_path):
    r = submit(tony, tmp_path, {"tony.worker.resources": str(tmp_path / "nope.txt")})
    assert_refused(tony, r, "tony.worker.resources entry " + str(tmp_path / "nope.txt"),
                   "no such file or directory")


def test_hdfs_resources_and_classpath_need_yarn(tony, tmp_path):
    r = submit(tony, tmp_path, {"tony.containers.resources": "hdfs:///user/tony/env.zip#archive"})
    assert_refused(tony, r, "tony.containers.resources entry hdfs:///user/tony/env.zip#archive",
                   "the local engine cannot fetch hdfs:// resources")
    r = submit(tony, tmp_path, {}, "--hdfs_classpath", "/yarn/libs")
    assert_refused(tony, r, "entry hdfs:///yarn/libs", "--engine yarn")
