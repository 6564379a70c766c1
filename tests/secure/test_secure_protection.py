"""A job on the Kerberized minicluster at `hadoop.rpc.protection` integrity and privacy (the other
tests of this tier run at authentication): every Hadoop RPC connection of the job then has to
wrap and unwrap each call with the negotiated SASL layer, and the cluster refuses a connection
that offers less ("No common protection layer"). That is the client's to the RM (GSSAPI), the
AM's to the RM (DIGEST-MD5 with its AMRMToken) and to the NodeManagers (DIGEST-MD5 with NMTokens),
and the tasks' HDFS reads with their delegation token. A 2-worker job succeeds from the ticket
cache and from a keytab with no ticket cache, its tasks reading HDFS (the script fails the job
otherwise); the control plane is TLS whatever the cluster's protection."""
import re

import pytest

from secure_cluster import running_secure_minicluster
from test_secure_submit import put_input, secure_tony, site, submit


@pytest.fixture(scope="module", params=["integrity", "privacy"])
def cluster(request):
    with running_secure_minicluster(request.param) as sc:
        yield sc


def test_a_job_succeeds_from_the_ticket_cache_and_from_a_keytab(tmp_path, cluster):
    for name in ("core-site.xml", "yarn-site.xml"):
        protection = site(cluster.conf_dir, name, "hadoop.rpc.protection")
        if protection is not None:
            break
    assert protection == cluster.protection
    put_input(cluster, tmp_path)

    tony = secure_tony(tmp_path / "cache", cluster)
    r = submit(tony, tmp_path / "cache", cluster)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert re.search(r"application application_\d+_\d+ FINISHED", out), out

    tony = secure_tony(tmp_path / "keytab", cluster, ccache=str(tmp_path / "no-such-cache"))
    r = submit(tony, tmp_path / "keytab", cluster,
               flags=("--principal", cluster.user, "--keytab", cluster.user_keytab))
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert re.search(r"application application_\d+_\d+ FINISHED", out), out
