"""The horovod `driver` task: serves horovod's gloo rendezvous, as horovodrun (and TonY's
horovod_driver.py) would, on the port tony reserved for this task.

tony's horovod runtime gives this task CLUSTER_WORKER_LIST ("host:workers,...") and every worker
HOROVOD_GLOO_RENDEZVOUS_ADDR/PORT pointing here. The server is horovod's own HTTP key-value store,
initialised with horovod's own slot plan for the workers; it serves until tony stops the job (the
driver is an untracked role).
"""
import json
import os

from horovod.runner.common.util.hosts import get_host_assignments, parse_hosts
from horovod.runner.http.http_server import RendezvousHandler, RendezvousHTTPServer


def main():
    cluster = json.loads(os.environ["CLUSTER_SPEC"])
    port = int(cluster["driver"][0].rsplit(":", 1)[1])
    hosts = parse_hosts(os.environ["CLUSTER_WORKER_LIST"])
    plan = get_host_assignments(hosts, sum(h.slots for h in hosts))
    server = RendezvousHTTPServer(("", port), RendezvousHandler, 0)
    server.init(plan)
    print(f"driver: rendezvous on port {port} for {os.environ['CLUSTER_WORKER_LIST']}: "
          + ", ".join(f"{s.hostname}[{s.local_rank}]=rank {s.rank}" for s in plan), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
