"""On YARN the job secret travels only as a secret key of the containers' credentials: the
NodeManager writes it to its private token files and nowhere else (not launch_container.sh, which
it copies into the container's log dir, not the environment or a log), and the executor takes it
out of the token file its user code can read. Scanned while the job runs, every file under the
NodeManagers' local and log dirs."""
import os
import re
import subprocess

from tonytest import SYSTEM_PYTHON, TONY_BIN, Tony, eventually, tony_xml, write

TASK = """
import os, sys, time
tokens = open(os.environ["HADOOP_TOKEN_FILE_LOCATION"], "rb").read()
print("user token file has the secret:", b"tony.job.secret" in tokens, flush=True)
deadline = time.monotonic() + 180
while not os.path.exists(os.environ["MARKER"]) and time.monotonic() < deadline:
    time.sleep(0.1)
"""
SECRET_IN_TOKENS = re.compile(rb"tony\.job\.secret.([0-9a-f]{64})", re.S)


def files_under(root):
    for d, _, names in os.walk(root):
        for n in names:
            path = os.path.join(d, n)
            if os.path.isfile(path) and not os.path.islink(path):
                yield path


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read(64 << 20)
    except OSError:
        return b""


def test_the_secret_is_only_in_the_nodemanagers_token_files(minicluster, tmp_path):
    tony = Tony(tmp_path / "home")
    tony.env["HADOOP_CONF_DIR"] = minicluster
    marker = str(tmp_path / "scanned")
    src = tmp_path / "src"
    write(str(src / "task.py"), TASK)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": "generic", "tony.worker.instances": "1",
        "tony.worker.memory": "256m", "tony.am.memory": "256m"})
    proc = subprocess.Popen([TONY_BIN, "submit", "--executes", "task.py", "--python_binary_path",
                             SYSTEM_PYTHON, "--src_dir", str(src), "--conf_file", conf,
                             "--shell_env", f"MARKER={marker}"], env=tony.env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        data = os.path.join(minicluster, "data")
        app = eventually(lambda: tony.running_job(tasks=1), timeout=180, what="the task to run")
        private = [p for p in files_under(data)
                   if "/nmPrivate/" in p and app in p and p.endswith(".tokens")]
        secrets = {m for p in private for m in SECRET_IN_TOKENS.findall(read(p))}
        assert len(secrets) == 1, (private, secrets)  # the AM's and the executor's: one secret
        secret = secrets.pop()
        scanned = [p for p in files_under(data) if app in p and p not in private]
        assert any(p.endswith("launch_container.sh") for p in scanned), scanned
        assert any(p.endswith("container_tokens") for p in scanned), scanned
        leaks = [p for p in scanned if secret in read(p)]
        assert not leaks, leaks
    finally:
        open(marker, "w").close()
        out, _ = proc.communicate(timeout=180)
    assert proc.returncode == 0, out
    logs = tony.run("logs", app, "--task", "worker:0", "--stream", "stdout")
    assert "user token file has the secret: False" in logs.stdout, logs.stdout + logs.stderr
