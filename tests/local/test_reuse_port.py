"""TonY's TF_GRPC_REUSE_PORT=true (in tony.execution.envs): the executor keeps the task's port
bound with SO_REUSEPORT while the user process runs, so only a process that also sets
SO_REUSEPORT (TensorFlow's gRPC with that option) can bind it; without it the port is released
just before the user process starts."""
from tonytest import assert_nothing_left, job_id_from, tony_xml, write

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


def test_with_tf_grpc_reuse_port_only_a_reuseport_bind_gets_the_port(tony, tmp_path):
    out, executor_log = run(tony, tmp_path, "TF_GRPC_REUSE_PORT=true")
    assert "plain=EADDRINUSE reuseport=bound" in out, out
    assert "bound with SO_REUSEPORT (TF_GRPC_REUSE_PORT=true" in executor_log, executor_log


def test_without_it_the_port_is_free_when_the_user_process_starts(tony, tmp_path):
    out, executor_log = run(tony, tmp_path, "TF_GRPC_REUSE_PORT=false")
    assert "plain=bound reuseport=bound" in out, out
    assert "SO_REUSEPORT" not in executor_log, executor_log
