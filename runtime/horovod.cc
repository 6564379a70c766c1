// Horovod (gloo controller, static topology): the variables horovodrun's gloo launcher gives each
// worker (docs/tony-compat.md §4.3), computed from the cluster spec instead of a launcher.
//
// Slots follow horovod's own host assignment (runner/common/util/hosts.py,
// get_host_assignments): hosts in the order their first worker appears, ranks contiguous per
// host, one slot per worker task; a worker takes the slot matching its position among the workers
// on its host, as TonY's executors do. The gloo rendezvous server (horovod's HTTP key-value store)
// is at the `driver` task when the job has one (TonY's layout: the driver runs horovod's
// RendezvousServer on its reserved port), else at worker 0's reserved port.
//
// TonY's job shape for Horovod adds an untracked one-task `driver` role that serves the
// rendezvous (runtime/horovod_driver.h); workers start once it listens.
#include <algorithm>

#include "common/files.h"
#include "common/log.h"
#include "common/net.h"
#include "common/strings.h"
#include "runtime/frameworks.h"
#include "runtime/horovod_driver.h"
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

constexpr int64_t kHorovodDriverWaitMs = 120'000;

// Horovod is all-reduce among workers, as horovodrun runs it (docs/tony-compat.md §4.3).
Status ValidateHorovod(const JobSpec& spec) {
  if (Instances(spec, "ps") > 0) {
    return InvalidArgument(
        "tony.application.framework = horovod has no parameter servers: "
        "its workers all-reduce among themselves (set tony.ps.instances = 0)");
  }
  if (Instances(spec, "worker") < 1) {
    return InvalidArgument(
        "tony.application.framework = horovod needs tony.worker.instances to "
        "be at least 1");
  }
  if (spec.mode == DistributedMode::kFcfs) {
    return InvalidArgument(
        "tony.application.framework = horovod needs every worker in the "
        "rendezvous: set tony.application.distributed-mode = GANG");
  }
  return Status::Ok();
}

void AddHorovodDriver(Configuration& conf, const std::string& python) {
  if (ParseInt64(conf.GetOr("tony.driver.instances", "0")).value_or(0) > 0) return;
  const std::string source = "horovod runtime";
  conf.Set("tony.driver.instances", "1", source);
  conf.Set("tony.driver.vcores", "1", source);
  conf.Set("tony.driver.memory", "512m", source);
  conf.Set("tony.driver.command",
           (python.empty() ? "python3" : python) + " " + std::string(kHorovodDriverFile), source);
  std::string untracked = conf.GetOr("tony.application.untracked.jobtypes", "ps");
  conf.Set("tony.application.untracked.jobtypes",
           untracked.empty() ? "driver" : untracked + ",driver", source);
}

// TonY makes Horovod's workers wait for the driver's callback likewise.
Status WaitForHorovodDriver(const Cluster& cluster) {
  auto driver = cluster.find("driver");
  if (driver == cluster.end() || driver->second.empty()) return Status::Ok();
  const std::string& address = driver->second.front();
  size_t colon = address.rfind(':');
  int port = colon == std::string::npos
                 ? 0
                 : static_cast<int>(ParseInt64(address.substr(colon + 1)).value_or(0));
  if (port <= 0) return Internal("bad driver address " + address);
  TONY_LOG(kInfo) << "waiting for the horovod rendezvous at " << address;
  if (!WaitForTcpListener(address.substr(0, colon), port, kHorovodDriverWaitMs)) {
    return DeadlineExceeded("the horovod driver at " + address +
                            " did not serve the rendezvous within 120 s");
  }
  return Status::Ok();
}

class Horovod final : public Framework {
 public:
  std::string_view name() const override { return "horovod"; }
  Status Validate(const JobSpec& spec) const override { return ValidateHorovod(spec); }
  void AddRoles(Configuration& conf, const std::string& python) const override {
    AddHorovodDriver(conf, python);
  }
  Result<EnvMap> TaskEnv(const TaskEnvInput& in) const override { return HorovodEnv(in); }
  Status PrepareTask(const JobSpec& /*spec*/, const std::string& role) const override {
    if (role != "driver") return Status::Ok();
    return WriteFileAtomic(std::string(kHorovodDriverFile), std::string(kHorovodDriverScript));
  }
  Status WaitUntilReady(const JobSpec& /*spec*/, const std::string& role,
                        const Cluster& cluster) const override {
    return role == "driver" ? Status::Ok() : WaitForHorovodDriver(cluster);
  }
};

}  // namespace

std::unique_ptr<Framework> MakeHorovod() { return std::make_unique<Horovod>(); }

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
