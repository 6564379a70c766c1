"""The test minicluster in secure mode: a throwaway KDC (kdc.py) and a Kerberized MiniDFS +
MiniYARN (minicluster.py) with authorization on, SPNEGO on the web endpoints, block access tokens
and `hadoop.rpc.protection` as asked.

As a fixture: `with running_secure_minicluster("privacy") as sc: ...`.
As a wrapper for tests in other languages (the C++ integration tests):
    python3 tests/lib/secure_cluster.py --protection privacy -- <command...>
runs <command> with the realm's KRB5_CONFIG, a ticket cache with alice's ticket in KRB5CCNAME, and
TONY_SECURE_* variables (see `SecureCluster.env`); exits with the command's exit code.
"""
import argparse
import contextlib
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kdc as kdc_lib  # noqa: E402
import minicluster  # noqa: E402

# One service principal for every daemon: in one JVM each daemon's keytab login replaces the
# process-wide login user, so a principal per daemon breaks the DataNode's registration.
SERVICE = "hadoop/localhost"
HTTP = "HTTP/localhost"
USER = "alice"
# The one user alice may act for (tony submit --proxy_user), as an Azkaban service would.
PROXY_USER = "bob"
# The secure tier's shared cluster (tests/secure/conftest.py): its RM cancels an ended
# application's tokens after this delay (30 s by default); short there, so that a token file's
# tokens cancelled after a job would fail the next job at once (tests/secure/test_secure_submit.py).
TOKEN_REMOVAL_MS = 500


def secure_conf(realm, keytab, protection):
    service = f"{SERVICE}@{realm}"
    http = f"{HTTP}@{realm}"
    return {
        "hadoop.security.authentication": "kerberos",
        "hadoop.security.authorization": "true",
        "hadoop.rpc.protection": protection,
        "dfs.block.access.token.enable": "true",
        "dfs.namenode.kerberos.principal": service,
        "dfs.namenode.keytab.file": keytab,
        "dfs.namenode.kerberos.internal.spnego.principal": http,
        "dfs.datanode.kerberos.principal": service,
        "dfs.datanode.keytab.file": keytab,
        "dfs.web.authentication.kerberos.principal": http,
        "dfs.web.authentication.kerberos.keytab": keytab,
        # Hadoop's test-only switch: a secure DataNode on unprivileged ports without root and
        # without SASL data transfer protection + HTTPS.
        "ignore.secure.ports.for.testing": "true",
        "yarn.resourcemanager.principal": service,
        "yarn.resourcemanager.keytab": keytab,
        "yarn.nodemanager.principal": service,
        "yarn.nodemanager.keytab": keytab,
        # Without these WebHDFS answers 403 even to a good SPNEGO exchange.
        "hadoop.http.authentication.type": "kerberos",
        "hadoop.http.authentication.kerberos.principal": http,
        "hadoop.http.authentication.kerberos.keytab": keytab,
        "hadoop.http.authentication.simple.anonymous.allowed": "false",
        # alice may impersonate bob (and no one else) from any host.
        f"hadoop.proxyuser.{USER}.hosts": "*",
        f"hadoop.proxyuser.{USER}.users": PROXY_USER,
    }


class SecureCluster:
    def __init__(self, kdc, conf_dir, user_keytab, service_keytab, protection):
        self.kdc = kdc
        self.conf_dir = conf_dir
        self.user = kdc.principal(USER)
        self.user_keytab = user_keytab
        self.service_keytab = service_keytab
        self.protection = protection

    def env(self, ccache=None):
        env = self.kdc.env(ccache)
        env.update({
            "HADOOP_CONF_DIR": self.conf_dir,
            "TONY_SECURE_CONF_DIR": self.conf_dir,
            "TONY_SECURE_REALM": self.kdc.realm,
            "TONY_SECURE_USER": self.user,
            "TONY_SECURE_USER_KEYTAB": self.user_keytab,
            "TONY_SECURE_SERVICE": self.kdc.principal(SERVICE),
            "TONY_SECURE_SERVICE_KEYTAB": self.service_keytab,
            "TONY_SECURE_PROTECTION": self.protection,
            "TONY_SECURE_KDC_DIR": self.kdc.root,
        })
        return env

    def second_dfs(self):
        """{"rpc": host:port, "http": host:port} of the cluster started with --second-dfs."""
        text = open(os.path.join(self.conf_dir, "second-dfs.txt")).read()
        return dict(line.split("=", 1) for line in text.split())

    def kinit(self, ccache=None):
        """alice's ticket from her keytab into `ccache` (default: the realm's cache)."""
        return self.kdc.kinit(USER, self.user_keytab, ccache)


@contextlib.contextmanager
def running_secure_minicluster(protection="authentication", nodemanagers=2, conf=None,
                               flags=(), realm_on_nodes=False):
    """With `realm_on_nodes`, every container gets KRB5_CONFIG of the test realm (the NodeManagers'
    yarn.nodemanager.admin-env), as a node's /etc/krb5.conf would name the KDC; else containers
    know no realm."""
    with kdc_lib.running_kdc() as kdc:
        service_keytab = os.path.join(kdc.root, "service.keytab")
        kdc.add_principal(SERVICE, service_keytab)
        kdc.add_principal(HTTP, service_keytab)
        user_keytab = os.path.join(kdc.root, "alice.keytab")
        kdc.add_principal(USER, user_keytab)
        settings = secure_conf(kdc.realm, service_keytab, protection)
        if realm_on_nodes:
            settings["yarn.nodemanager.admin-env"] = f"KRB5_CONFIG={kdc.krb5_conf}"
        settings.update(conf or {})
        with minicluster.running_minicluster(nodemanagers, settings, env=kdc.env(),
                                             flags=flags) as conf_dir:
            sc = SecureCluster(kdc, conf_dir, user_keytab, service_keytab, protection)
            sc.kinit()
            yield sc


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--protection", default="authentication",
                        choices=["authentication", "integrity", "privacy"])
    parser.add_argument("--nodemanagers", type=int, default=1)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    with running_secure_minicluster(args.protection, args.nodemanagers) as sc:
        return subprocess.run(args.command, env=sc.env()).returncode


if __name__ == "__main__":
    sys.exit(main())
