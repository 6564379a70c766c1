"""The yarn tier's fixture: one MiniDFS + MiniYARN cluster (tests/minicluster, 2 NodeManagers)
for the whole module, stopped (stdin closed, then the process group killed) at the end."""
from minicluster import minicluster_fixture


minicluster = minicluster_fixture(scope="session", nodemanagers=2)
