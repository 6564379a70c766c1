"""--python_venv and --src_dir are shipped to every task as TonY does: the venv zip is unpacked
into venv/ and a relative --python_binary_path runs from it; the src dir lands in the working
directory (TonY's check_env_and_venv.py test, with a real virtualenv)."""
import os
import subprocess

from tonytest import tony_xml, write

CHECK = """
import os, sys
assert os.path.exists("venv/123.txt"), "venv not unpacked into venv/"
assert sys.prefix.endswith("/venv"), sys.prefix
assert os.environ["ENV_CHECK"] == "ENV_CHECK", "--shell_env not applied"
assert os.path.exists("data/input.txt"), "src_dir not unpacked into the working dir"
print("venv ok", sys.prefix)
"""


def make_venv(tmp_path):
    venv = tmp_path / "myvenv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", str(venv)], check=True)
    write(str(venv / "123.txt"), "marker\n")
    subprocess.run(["zip", "-q", "-r", "-y", str(tmp_path / "venv.zip"), "."], cwd=venv, check=True)
    return str(tmp_path / "venv.zip")


def test_task_runs_in_the_shipped_venv_with_its_src_dir(tony, tmp_path):
    src = tmp_path / "src"
    write(str(src / "check.py"), CHECK)
    write(str(src / "data" / "input.txt"), "x\n")
    venv_zip = make_venv(tmp_path)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "1", "tony.worker.memory": "256m",
        "tony.application.framework": "generic"})
    r = tony.run("submit", "--executes", "check.py", "--python_venv", venv_zip,
                 "--python_binary_path", "bin/python3", "--src_dir", str(src),
                 "--shell_env", "ENV_CHECK=ENV_CHECK", "--conf_file", conf)
    assert r.returncode == 0, r.stdout + r.stderr
    out = open(os.path.join(tony.task("worker", 0)["log_dir"], "stdout")).read()
    assert "venv ok" in out


def test_an_interpreter_missing_from_the_venv_is_refused_before_start(tony, tmp_path):
    src = tmp_path / "src"
    write(str(src / "check.py"), CHECK)
    venv_zip = make_venv(tmp_path)
    conf = tony_xml(str(tmp_path / "tony.xml"), {"tony.worker.instances": "1",
                                                 "tony.worker.memory": "256m"})
    r = tony.run("submit", "--executes", "check.py", "--python_venv", venv_zip,
                 "--python_binary_path", "venv/bin/python3", "--src_dir", str(src),
                 "--conf_file", conf)
    assert r.returncode == 2
    assert "--python_binary_path venv/bin/python3: no such file in --python_venv" in r.stderr
    assert tony.jobs() == []


def test_an_unzip_failure_names_unzips_own_reason(tony, tmp_path):
    import zipfile
    src_zip = str(tmp_path / "src.zip")
    with zipfile.ZipFile(src_zip, "w") as z:
        z.writestr("/etc/tony-abs.txt", "x")
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "1", "tony.worker.memory": "256m",
        "tony.application.framework": "generic"})
    r = tony.run("submit", "--executes", "true", "--src_dir", src_zip, "--conf_file", conf)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "stripped absolute path spec from /etc/tony-abs.txt" in r.stdout, r.stdout


def test_a_src_symlink_leaving_the_working_dir_is_never_unpacked_through(tony, tmp_path):
    # The src zip's `venv` points outside; the venv zip is unpacked into venv/ next.
    outside = tmp_path / "outside"
    outside.mkdir()
    src = tmp_path / "src"
    src.mkdir()
    os.symlink(str(outside), str(src / "venv"))
    venv = tmp_path / "v"
    write(str(venv / "bin" / "activate"), "# venv\n")
    subprocess.run(["zip", "-q", "-r", "-y", str(tmp_path / "venv.zip"), "."], cwd=venv, check=True)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.worker.instances": "1", "tony.worker.memory": "256m",
        "tony.application.framework": "generic"})
    r = tony.run("submit", "--executes", "true", "--src_dir", str(src), "--python_venv",
                 str(tmp_path / "venv.zip"), "--conf_file", conf)
    assert r.returncode == 1, r.stdout + r.stderr
    assert os.listdir(outside) == [], "unpacked outside the task's working directory"
    assert "would be written through the symlink 'venv'" in r.stdout, r.stdout
    assert "venv.zip: entry 'bin/" in r.stdout, r.stdout
