// The Horovod rendezvous driver tony ships, as TonY ships horovod_driver.py: for
// tony.application.framework = horovod the client adds an untracked one-task `driver` role
// (docs/tony-compat.md §4.3) whose executor writes this script into its working directory and runs
// it with the job's python. It serves horovod's own gloo rendezvous (its HTTP key-value store,
// initialised with horovod's own slot plan for the workers) on the port tony reserved for the
// driver, until tony stops it when the workers are done.
#pragma once

#include <string_view>

namespace tony::runtime {

inline constexpr std::string_view kHorovodDriverFile = "tony_horovod_driver.py";

inline constexpr std::string_view kHorovodDriverScript = R"PY(# Written by tony's executor for the
# horovod `driver` task; see runtime/horovod_driver.h.
import json
import os

from horovod.runner.common.util.hosts import get_host_assignments, parse_hosts
from horovod.runner.http.http_server import RendezvousHandler, RendezvousHTTPServer

cluster = json.loads(os.environ["CLUSTER_SPEC"])
port = int(cluster["driver"][0].rsplit(":", 1)[1])
hosts = parse_hosts(os.environ["CLUSTER_WORKER_LIST"])
plan = get_host_assignments(hosts, sum(h.slots for h in hosts))
server = RendezvousHTTPServer(("", port), RendezvousHandler, 0)
server.init(plan)
print("tony horovod driver: rendezvous on port %d for %s" % (port, os.environ["CLUSTER_WORKER_LIST"]),
      flush=True)
server.serve_forever()
)PY";

}  // namespace tony::runtime
