// Horovod (gloo controller, static topology): the variables horovodrun's gloo launcher gives each
// worker (docs/tony-compat.md §4.3), computed from the cluster spec instead of a launcher.
//
// Slots follow horovod's own host assignment (runner/common/util/hosts.py,
// get_host_assignments): hosts in the order their first worker appears, ranks contiguous per
// host, one slot per worker task; a worker takes the slot matching its position among the workers
// on its host, as TonY's executors do. The gloo rendezvous server (horovod's HTTP key-value store)
// is at the `driver` task when the job has one (TonY's layout: the driver runs horovod's
// RendezvousServer on its reserved port), else at worker 0's reserved port.
#include <algorithm>

#include "runtime/peers.h"
#include "runtime/runtime.h"

namespace tony::runtime {
namespace {

struct HostSlots {
  std::string host;
  int workers = 0;
};

// Hosts in order of first appearance in the worker list, with their worker counts.
std::vector<HostSlots> HostsInOrder(const std::vector<std::string>& workers) {
  std::vector<HostSlots> hosts;
  for (const auto& address : workers) {
    std::string host = SplitHostPort(address).first;
    auto it = std::find_if(hosts.begin(), hosts.end(),
                           [&](const HostSlots& h) { return h.host == host; });
    if (it == hosts.end()) {
      hosts.push_back({host, 1});
    } else {
      ++it->workers;
    }
  }
  return hosts;
}

}  // namespace

std::vector<HorovodSlot> HorovodSlots(const std::vector<std::string>& workers) {
  std::vector<HostSlots> hosts = HostsInOrder(workers);
  std::vector<HorovodSlot> slots(workers.size());
  std::vector<int> seen_on_host(hosts.size(), 0);
  for (size_t i = 0; i < workers.size(); ++i) {
    std::string host = SplitHostPort(workers[i]).first;
    size_t h = 0;
    int first_rank = 0;
    while (hosts[h].host != host) first_rank += hosts[h++].workers;
    HorovodSlot& s = slots[i];
    s.hostname = host;
    s.local_rank = seen_on_host[h]++;
    s.local_size = hosts[h].workers;
    s.rank = first_rank + s.local_rank;
    s.size = static_cast<int>(workers.size());
    // Cross communicators join the same local rank across hosts.
    s.cross_rank = 0;
    s.cross_size = 0;
    for (size_t other = 0; other < hosts.size(); ++other) {
      if (hosts[other].workers <= s.local_rank) continue;
      if (other < h) ++s.cross_rank;
      ++s.cross_size;
    }
  }
  return slots;
}

std::string HorovodWorkerList(const std::vector<std::string>& workers) {
  std::string list;
  for (const auto& h : HostsInOrder(workers)) {
    if (!list.empty()) list += ",";
    list += h.host + ":" + std::to_string(h.workers);
  }
  return list;
}

Result<EnvMap> HorovodEnv(const TaskEnvInput& in) {
  EnvMap env;
  if (in.cluster.empty()) return env;
  env["CLUSTER_SPEC"] = ClusterSpecJson(in.cluster);
  auto workers = in.cluster.find("worker");
  if (workers == in.cluster.end() || workers->second.empty()) return env;
  if (in.role == "driver") {
    env["CLUSTER_WORKER_LIST"] = HorovodWorkerList(workers->second);
    return env;
  }
  if (in.role != "worker" || in.index < 0 || in.index >= static_cast<int>(workers->second.size())) {
    return env;
  }
  auto driver = in.cluster.find("driver");
  const std::string& rendezvous = driver != in.cluster.end() && !driver->second.empty()
                                      ? driver->second.front()
                                      : workers->second.front();
  auto [rdzv_host, rdzv_port] = SplitHostPort(rendezvous);
  if (rdzv_host.empty()) return InvalidArgument("malformed address in cluster spec: " + rendezvous);
  for (const auto& address : workers->second) {
    if (SplitHostPort(address).first.empty()) {
      return InvalidArgument("malformed address in cluster spec: " + address);
    }
  }
  HorovodSlot slot = HorovodSlots(workers->second)[in.index];
  env["HOROVOD_CONTROLLER"] = "gloo";
  env["HOROVOD_CPU_OPERATIONS"] = "gloo";
  env["HOROVOD_GLOO_TIMEOUT_SECONDS"] = "2000";
  env["HOROVOD_GLOO_RENDEZVOUS_ADDR"] = rdzv_host;
  env["HOROVOD_GLOO_RENDEZVOUS_PORT"] = rdzv_port;
  env["HOROVOD_HOSTNAME"] = slot.hostname;
  env["HOROVOD_RANK"] = std::to_string(slot.rank);
  env["HOROVOD_SIZE"] = std::to_string(slot.size);
  env["HOROVOD_LOCAL_RANK"] = std::to_string(slot.local_rank);
  env["HOROVOD_LOCAL_SIZE"] = std::to_string(slot.local_size);
  env["HOROVOD_CROSS_RANK"] = std::to_string(slot.cross_rank);
  env["HOROVOD_CROSS_SIZE"] = std::to_string(slot.cross_size);
  return env;
}

}  // namespace tony::runtime
