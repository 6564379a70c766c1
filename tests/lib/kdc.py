"""A throwaway MIT Kerberos KDC for tests (Debian's krb5-kdc, kadmin.local from krb5-admin-server).

The realm lives in a temp dir: krb5.conf, kdc.conf, the database and the KDC's log. The KDC runs
unprivileged on a free loopback port (TCP and UDP; clients are told to use TCP). Processes that
should see this realm get `env()` (KRB5_CONFIG, KRB5_KDC_PROFILE, and a ticket cache of their own
in KRB5CCNAME). Nothing here touches /etc/krb5.conf or the user's own ticket cache.
"""
import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time

REALM = "TONY.TEST"
# Java 17 and MIT krb5 1.20 both speak these; the KDC's default set adds enctypes some JDKs lack.
ENCTYPES = "aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal"
MASTER_PASSWORD = "tony-test-master"


class KdcError(Exception):
    pass


def _free_port():
    """A port free for TCP and UDP on loopback at the time of the call."""
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
            tcp.bind(("127.0.0.1", 0))
            port = tcp.getsockname()[1]
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                try:
                    udp.bind(("127.0.0.1", port))
                except OSError:
                    continue
            return port
    raise KdcError("no free port for the KDC")


def _tool(name):
    for d in ("/usr/sbin", "/usr/bin"):
        path = os.path.join(d, name)
        if os.access(path, os.X_OK):
            return path
    found = shutil.which(name)
    if not found:
        raise KdcError(f"{name} not found: install krb5-kdc, krb5-admin-server and krb5-user "
                       "(scripts/setup.sh)")
    return found


class Kdc:
    """A running KDC; make it with `running_kdc()`."""

    def __init__(self, root):
        self.root = root
        self.realm = REALM
        self.port = _free_port()
        self.krb5_conf = os.path.join(root, "krb5.conf")
        self.kdc_conf = os.path.join(root, "kdc.conf")
        self.ccache = os.path.join(root, "ccache")
        self.proc = None

    def env(self, ccache=None):
        """The environment for processes that use this realm, on top of os.environ."""
        env = dict(os.environ)
        env["KRB5_CONFIG"] = self.krb5_conf
        env["KRB5_KDC_PROFILE"] = self.kdc_conf
        env["KRB5CCNAME"] = "FILE:" + (ccache or self.ccache)
        env.pop("KRB5_CLIENT_KTNAME", None)
        return env

    def _write_conf(self):
        with open(self.krb5_conf, "w") as f:
            f.write(f"""[libdefaults]
  default_realm = {REALM}
  dns_lookup_realm = false
  dns_lookup_kdc = false
  rdns = false
  dns_canonicalize_hostname = false
  udp_preference_limit = 1
  ticket_lifetime = 1h
  renew_lifetime = 2h
  forwardable = true

[realms]
  {REALM} = {{
    kdc = 127.0.0.1:{self.port}
  }}
""")
        with open(self.kdc_conf, "w") as f:
            f.write(f"""[kdcdefaults]
  kdc_ports = {self.port}
  kdc_tcp_ports = {self.port}

[realms]
  {REALM} = {{
    database_name = {self.root}/principal
    key_stash_file = {self.root}/stash
    acl_file = {self.root}/kadm5.acl
    supported_enctypes = {ENCTYPES}
    max_life = 1h
    max_renewable_life = 2h
  }}

[logging]
  kdc = FILE:{self.root}/kdc.log
  default = FILE:{self.root}/kdc.log
""")
        with open(os.path.join(self.root, "kadm5.acl"), "w") as f:
            f.write("")

    def _run(self, argv, input_text=None):
        result = subprocess.run(argv, env=self.env(), input=input_text, capture_output=True,
                                text=True, timeout=60)
        if result.returncode != 0:
            raise KdcError(f"{os.path.basename(argv[0])} failed ({result.returncode}): "
                           f"{result.stderr.strip()}")
        return result.stdout

    def start(self):
        self._write_conf()
        self._run([_tool("kdb5_util"), "create", "-s", "-r", REALM, "-P", MASTER_PASSWORD])
        log = open(os.path.join(self.root, "krb5kdc.out"), "w")
        self.proc = subprocess.Popen([_tool("krb5kdc"), "-n", "-r", REALM], env=self.env(),
                                     stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise KdcError(f"krb5kdc exited with {self.proc.returncode}; see {self.root}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise KdcError("krb5kdc did not listen within 30 s")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kadmin(self, query):
        return self._run([_tool("kadmin.local"), "-r", REALM, "-q", query])

    def principal(self, name):
        """`name` with the realm appended when it has none."""
        return name if "@" in name else f"{name}@{REALM}"

    def add_principal(self, name, keytab=None, password=None, max_life=None):
        """Adds `name` (random key unless `password`); with `keytab`, exports its keys there."""
        opts = f"-pw {password}" if password else "-randkey"
        if max_life:
            opts += f' -maxlife "{max_life}"'
        self.kadmin(f"addprinc {opts} {self.principal(name)}")
        if keytab:
            self.kadmin(f"ktadd -k {keytab} -norandkey {self.principal(name)}")
        return self.principal(name)

    def kinit(self, principal, keytab, ccache=None, lifetime=None):
        """Gets a ticket for `principal` from `keytab` into `ccache` (default: this realm's)."""
        argv = [_tool("kinit"), "-k", "-t", keytab]
        if lifetime:
            argv += ["-l", lifetime]
        argv.append(self.principal(principal))
        env = self.env(ccache)
        result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise KdcError(f"kinit {principal} failed: {result.stderr.strip()}")
        return env["KRB5CCNAME"]


@contextlib.contextmanager
def running_kdc():
    """Yields a started Kdc with an empty realm; stops it and removes its directory after."""
    root = tempfile.mkdtemp(prefix="tony-kdc-")
    kdc = Kdc(root)
    try:
        kdc.start()
        yield kdc
    finally:
        kdc.stop()
        if not os.environ.get("TONY_KEEP_MINICLUSTER"):
            shutil.rmtree(root, ignore_errors=True)
