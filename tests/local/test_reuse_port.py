"""The task port hold: the executor keeps the task's port bound with SO_REUSEPORT while the user
process runs, so only a process of the same user that also sets SO_REUSEPORT (TensorFlow's gRPC
with TF_GRPC_REUSE_PORT=true, JAX's coordinator, or any process through the preloaded
libtony-reuseport.so) can bind it. On by default; off with tony.task.hold-port=false or TonY's
TF_GRPC_REUSE_PORT=false in tony.execution.envs, and then the port is released just before the
user process starts."""
import socket
import subprocess

from tonytest import SYSTEM_PYTHON, assert_nothing_left, eventually, job_id_from, tony_xml, write

# Binds the task's own port (from CLUSTER_SPEC) once plainly, once with SO_REUSEPORT, and prints
# what each bind did.
PROBE = """
import errno, json, os, socket
spec = json.loads(os.environ["CLUSTER_SPEC"])
port = int(spec[os.environ["JOB_NAME"]][int(os.environ["TASK_INDEX"])].rsplit(":", 1)[1])

def bind(reuse):
    s = socket.socket()
    if reuse:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        s.bind(("0.0.0.0", port))
        s.listen()
        return s, "bound"
    except OSError as e:
        s.close()
        return None, errno.errorcode[e.errno]

plain, plain_result = bind(False)
if plain:
    plain.close()
reused, reuse_result = bind(True)
print(f"plain={plain_result} reuseport={reuse_result}", flush=True)
"""


def run(tony, tmp_path, envs):
    write(str(tmp_path / "src" / "probe.py"), PROBE)
    props = {"tony.application.framework": "generic", "tony.worker.instances": "1",
             "tony.worker.memory": "128m"}
    if envs:
        props["tony.execution.envs"] = envs
    conf = tony_xml(str(tmp_path / "tony.xml"), props)
    r = tony.run("submit", "--executes", "probe.py", "--python_binary_path", "python3",
                 "--src_dir", str(tmp_path / "src"), "--conf_file", conf, timeout=90)
    assert r.returncode == 0, r.stdout + r.stderr
    job_id = job_id_from(r.stdout)
    logs = tony.run("logs", job_id, "--task", "worker:0")
    executor_log = tony.run("logs", job_id, "--task", "worker:0", "--stream", "executor")
    assert_nothing_left(tony.home)
    return logs.stdout, executor_log.stdout


def test_with_tf_grpc_reuse_port_the_port_is_held_and_the_task_binds_it_either_way(tony,
                                                                                   tmp_path):
    """TonY's variable turns the hold on for a generic job; the task's own binds, with
    SO_REUSEPORT or without, get the port (the latter through libtony-reuseport.so)."""
    out, executor_log = run(tony, tmp_path, "TF_GRPC_REUSE_PORT=true")
    assert "plain=bound reuseport=bound" in out, out
    assert "bound with SO_REUSEPORT (TF_GRPC_REUSE_PORT=true in tony.execution.envs); the " \
        "process binds it through " in executor_log, executor_log


def test_without_it_the_port_is_free_when_the_user_process_starts(tony, tmp_path):
    out, executor_log = run(tony, tmp_path, "TF_GRPC_REUSE_PORT=false")
    assert "plain=bound reuseport=bound" in out, out
    assert "SO_REUSEPORT" not in executor_log, executor_log


# A task that shows the attack's window: it publishes its port, then waits (as a slow `import
# tensorflow` or `import torch` would) until the test says go before binding it, with
# SO_REUSEPORT as TensorFlow's server does with TF_GRPC_REUSE_PORT=true ("reuse") or without, as
# PyTorch's TCPStore does ("plain"), and answers one connection.
SLOW_SERVER = """
import json, os, socket, sys, time
if "MASTER_PORT" in os.environ:
    port = int(os.environ["MASTER_PORT"])
else:
    port = int(json.loads(os.environ["CLUSTER_SPEC"])["worker"][0].rsplit(":", 1)[1])
d, how = sys.argv[1], sys.argv[2]
with open(os.path.join(d, "port.tmp"), "w") as f:
    f.write(str(port))
os.rename(os.path.join(d, "port.tmp"), os.path.join(d, "port"))
while not os.path.exists(os.path.join(d, "go")):
    time.sleep(0.05)
s = socket.socket()
if how == "reuse":
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(("0.0.0.0", port))
s.listen()
open(os.path.join(d, "listening"), "w").close()
c, _ = s.accept()
c.sendall(b"the task")
c.close()
print("TF_GRPC_REUSE_PORT=" + os.environ.get("TF_GRPC_REUSE_PORT", "unset"), flush=True)
"""

# Another user (nobody) tries to take the port: a plain bind, one with SO_REUSEPORT, and an
# IPv6-only one (which a hold of IPv4 alone would let through, for peers that come over IPv6).
THIEF = """
import errno, socket, sys
for name in ("plain", "reuseport", "v6only"):
    s = socket.socket(socket.AF_INET6 if name == "v6only" else socket.AF_INET)
    if name == "reuseport":
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    if name == "v6only":
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    try:
        s.bind(("::" if name == "v6only" else "0.0.0.0", int(sys.argv[1])))
        s.listen()
        print(name, "bound", sep="=", end=" ")
    except OSError as e:
        print(name, errno.errorcode[e.errno], sep="=", end=" ")
    s.close()
"""


def has_ipv6():
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::", 0))
        return True
    except OSError:
        return False


def thief_saw(thief, expected):
    """The thief's results against the expected one for every bind; the IPv6 one only where the
    host has IPv6."""
    want = [f"plain={expected}", f"reuseport={expected}"]
    if has_ipv6():
        want.append(f"v6only={expected}")
    got = [r for r in thief.split() if has_ipv6() or not r.startswith("v6only=")]
    return got == want


def steal_then_serve(tony, tmp_path, props, framework="tensorflow", how="reuse"):
    """Submits SLOW_SERVER, lets nobody try to bind its port while the task has not bound it yet,
    then lets the task bind and connects to it. Returns (thief's output, what the port answered,
    the task's log, the executor's log)."""
    d = tmp_path / "rendezvous"
    d.mkdir()
    d.chmod(0o777)
    write(str(tmp_path / "src" / "server.py"), SLOW_SERVER)
    conf = tony_xml(str(tmp_path / "tony.xml"), {
        "tony.application.framework": framework, "tony.worker.instances": "1",
        "tony.worker.memory": "128m", **props})
    proc = tony.start("submit", "--executes", "server.py", "--task_params", f"{d} {how}",
                      "--python_binary_path", "python3", "--src_dir", str(tmp_path / "src"),
                      "--conf_file", conf)
    try:
        port = eventually(lambda: (d / "port").exists() and (d / "port").read_text(),
                          timeout=60, what="the task's port")
        thief = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                SYSTEM_PYTHON, "-c", THIEF, port],
                               capture_output=True, text=True, timeout=30)
        assert thief.returncode == 0, thief.stderr
        (d / "go").touch()
        eventually(lambda: (d / "listening").exists(), timeout=30, what="the task listening")
        with socket.create_connection(("127.0.0.1", int(port)), timeout=10) as c:
            answer = c.recv(64).decode()
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            (d / "go").touch()
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out + err
    job_id = job_id_from(out)
    logs = tony.run("logs", job_id, "--task", "worker:0").stdout
    executor_log = tony.run("logs", job_id, "--task", "worker:0", "--stream", "executor").stdout
    assert_nothing_left(tony.home)
    return thief.stdout, answer, logs, executor_log


def test_a_tensorflow_tasks_port_cannot_be_taken_by_another_user_before_the_task_binds_it(
        tony, tmp_path):
    thief, answer, logs, executor_log = steal_then_serve(tony, tmp_path, {})
    assert thief_saw(thief, "EADDRINUSE"), thief
    assert answer == "the task"
    assert "TF_GRPC_REUSE_PORT=true" in logs, logs
    assert "bound with SO_REUSEPORT (the default)" in executor_log, executor_log


def test_a_pytorch_tasks_port_is_held_too_and_its_plain_bind_gets_it(tony, tmp_path):
    """PyTorch's TCPStore binds MASTER_PORT without SO_REUSEPORT: the executor preloads
    libtony-reuseport.so into the process, which sets it on that bind only, so the port is held
    against other users until the process binds it, as for TensorFlow."""
    thief, answer, logs, executor_log = steal_then_serve(tony, tmp_path, {}, "pytorch", "plain")
    assert thief_saw(thief, "EADDRINUSE"), thief
    assert answer == "the task"
    assert "TF_GRPC_REUSE_PORT=unset" in logs, logs
    assert "bound with SO_REUSEPORT (the default); the process binds it through " in executor_log
    assert "libtony-reuseport.so" in executor_log, executor_log


def test_without_the_hold_another_user_can_bind_the_port_first(tony, tmp_path):
    """What the hold prevents: with tony.task.hold-port=false the port is free for anyone from
    the user process's start until it binds."""
    thief, answer, logs, _ = steal_then_serve(tony, tmp_path, {"tony.task.hold-port": "false"})
    assert thief_saw(thief, "bound"), thief
    assert answer == "the task"
    assert "TF_GRPC_REUSE_PORT=unset" in logs, logs
