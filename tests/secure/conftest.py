"""The secure tier's shared fixture: one Kerberized minicluster (tests/lib/secure_cluster.py,
authentication) for every file that needs no configuration of its own, started once per pytest
process. CTest runs those files in one process (tests/CMakeLists.txt, the tier's SHARED list),
so the KDC and the cluster start once for all of them; a file run alone gets its own. Files whose
cluster differs (protection levels, HA, HTTPS, token lifetimes, a second HDFS, SPNEGO on every
web endpoint) keep a module fixture of their own."""
import pytest

from secure_cluster import TOKEN_REMOVAL_MS, running_secure_minicluster


@pytest.fixture(scope="session")
def shared_secure_cluster():
    conf = {"yarn.resourcemanager.delayed.delegation-token.removal-interval-ms":
            str(TOKEN_REMOVAL_MS)}
    with running_secure_minicluster("authentication", conf=conf) as sc:
        yield sc
