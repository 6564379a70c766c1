"""The yarn tier's fixture: one MiniDFS + MiniYARN cluster (tests/minicluster, 2 NodeManagers)
for the whole module, stopped (stdin closed, then the process group killed) at the end."""
import pytest

from minicluster import MiniclusterError, running_minicluster


@pytest.fixture(scope="session")
def minicluster():
    try:
        with running_minicluster(nodemanagers=2) as conf_dir:
            yield conf_dir
    except MiniclusterError as e:
        pytest.fail(str(e))
