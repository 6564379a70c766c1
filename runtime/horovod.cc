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
// rendezvous (runtime/horovod_driver.h); workers start once it listens. With
// tony.horovod.driver.mode.debug the driver runs the job's tony.driver.command instead, which
// (as TonY's horovod_debug_driver.py does) starts a rendezvous server on a port of its choice and
// writes DRIVER_OUTPUT_PATH/<port>____HOROVOD_RENDEZVOUS_SERVER____ holding its slot plan; the
// driver's executor publishes both, and the coordinator releases the workers' spec only then
// (SpecAwaits). Either way the driver serves the job to its end: its ending by itself fails the
// job at once (ServesPeers) instead of leaving the workers waiting.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>

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
    std::string host = PeerHost(address);
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
        FrameworkIs("horovod") +
        " has no parameter servers: its workers all-reduce among themselves (set " +
        InstancesKey("ps") + " = 0)");
  }
  if (Instances(spec, "worker") < 1) {
    return InvalidArgument(FrameworkIs("horovod") + " needs " + InstancesKey("worker") +
                           " to be at least 1");
  }
  if (spec.mode == DistributedMode::kFcfs) {
    return InvalidArgument(FrameworkIs("horovod") + " needs every worker in the rendezvous: set " +
                           keys::kApplicationDistributedMode + " = GANG");
  }
  return Status::Ok();
}

constexpr std::string_view kPortFileSuffix = "____HOROVOD_RENDEZVOUS_SERVER____";
constexpr std::string_view kDriverOutputDir = "horovod_driver_output";
constexpr const char* kDebugKey = keys::kHorovodDriverModeDebug;

bool DebugDriver(const Configuration& conf) {
  return ParseBool(Trim(conf.GetOr(kDebugKey, "false"))).value_or(false);
}

std::string SetBy(const ConfigValue* v) { return v == nullptr ? "" : " (from " + v->source + ")"; }

// TonY's roles for Horovod: one untracked driver task; the job's own tony.driver.* keys only in
// the driver's debug mode (TonY refuses them otherwise).
Status AddHorovodDriver(Configuration& conf, const std::string& python) {
  const std::string source = "horovod runtime";
  auto driver = [](const char* key_template) { return keys::ForRole(key_template, "driver"); };
  const bool debug = DebugDriver(conf);
  if (!debug) {
    for (const auto& [key, value] : conf.entries()) {
      if (!StartsWith(key, keys::RolePrefix("driver") + ".") || value.FromDefaults()) continue;
      return InvalidArgument(
          key + SetBy(&value) + ": " + FrameworkIs("horovod") + " runs its own driver task; set " +
          kDebugKey + " = true to run yours (" + driver(keys::kRoleCommand) + "), as TonY does");
    }
    conf.Set(driver(keys::kRoleInstances), "1", source);
    conf.Set(driver(keys::kRoleVcores), "1", source);
    conf.Set(driver(keys::kRoleMemory), "512m", source);
    conf.Set(driver(keys::kRoleCommand),
             (python.empty() ? "python3" : python) + " " + std::string(kHorovodDriverFile), source);
  } else {
    if (Trim(conf.GetOr(driver(keys::kRoleCommand), "")).empty()) {
      return InvalidArgument(std::string(kDebugKey) + " = true" + SetBy(conf.Find(kDebugKey)) +
                             " needs " + driver(keys::kRoleCommand) +
                             ": the command that starts your rendezvous driver (e.g. TonY's "
                             "horovod_debug_driver.py)");
    }
    const ConfigValue* instances = conf.Find(driver(keys::kRoleInstances));
    if (instances != nullptr && !instances->FromDefaults() &&
        ParseInt64(Trim(instances->value)).value_or(-1) != 1) {
      return InvalidArgument(driver(keys::kRoleInstances) + " = \"" + instances->value + "\"" +
                             SetBy(instances) + ": the horovod driver is one task (set it to 1)");
    }
    conf.Set(driver(keys::kRoleInstances), "1", source);
    auto unset = [&](const std::string& key) {
      const ConfigValue* v = conf.Find(key);
      return v == nullptr || v->FromDefaults();
    };
    if (unset(driver(keys::kRoleVcores))) conf.Set(driver(keys::kRoleVcores), "1", source);
    if (unset(driver(keys::kRoleMemory))) conf.Set(driver(keys::kRoleMemory), "512m", source);
  }
  // Untracked: it serves until tony stops it, once the workers are done.
  std::string untracked = conf.GetOr(keys::kApplicationUntrackedJobtypes, "ps");
  for (const auto& role : SplitTrimmed(untracked, ',')) {
    if (role == "driver") return Status::Ok();
  }
  conf.Set(keys::kApplicationUntrackedJobtypes,
           Trim(untracked).empty() ? "driver" : untracked + ",driver", source);
  return Status::Ok();
}

std::string DriverOutputDir() {
  auto cwd = AbsolutePath(".");
  return JoinPath(cwd.ok() ? *cwd : ".", std::string(kDriverOutputDir));
}

// A slot plan entry's number: TonY's debug driver writes them as strings or numbers.
std::optional<int> PlanNumber(const nlohmann::json& entry, const char* field) {
  auto it = entry.find(field);
  if (it == entry.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<int>();
  if (it->is_string()) {
    auto n = ParseInt64(Trim(it->get<std::string>()));
    if (n) return static_cast<int>(*n);
  }
  return std::nullopt;
}

// The port file's plan (TonY's SlotInfo list: hostname, rank, localRank, crossRank, size,
// localSize, crossSize) as tony's slots, or an error naming what is wrong.
Result<std::vector<HorovodSlot>> ParseSlotPlan(const std::string& text) {
  nlohmann::json plan = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!plan.is_array() || plan.empty()) {
    return InvalidArgument(
        "expected a JSON list of slots ({\"hostname\", \"rank\", "
        "\"localRank\", \"crossRank\", \"size\", \"localSize\", "
        "\"crossSize\"}), as TonY's horovod driver writes");
  }
  std::vector<HorovodSlot> slots;
  for (const auto& entry : plan) {
    HorovodSlot slot;
    auto host = entry.is_object() ? entry.find("hostname") : entry.end();
    if (!entry.is_object() || host == entry.end() || !host->is_string()) {
      return InvalidArgument("slot " + std::to_string(slots.size()) + " has no \"hostname\"");
    }
    slot.hostname = host->get<std::string>();
    const std::pair<const char*, int*> fields[] = {
        {"rank", &slot.rank}, {"localRank", &slot.local_rank}, {"crossRank", &slot.cross_rank},
        {"size", &slot.size}, {"localSize", &slot.local_size}, {"crossSize", &slot.cross_size}};
    for (const auto& [field, out] : fields) {
      std::optional<int> n = PlanNumber(entry, field);
      if (!n) {
        return InvalidArgument("slot " + std::to_string(slots.size()) + " has no number \"" +
                               field + "\"");
      }
      *out = *n;
    }
    slots.push_back(slot);
  }
  return slots;
}

// The port file in `dir`, if the driver wrote one: its name and port.
std::optional<std::pair<std::string, int>> FindPortFile(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return std::nullopt;
  std::optional<std::pair<std::string, int>> found;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.size() <= kPortFileSuffix.size() || !EndsWith(name, kPortFileSuffix)) continue;
    auto port = ParseInt64(name.substr(0, name.size() - kPortFileSuffix.size()));
    if (port && *port > 0 && *port < 65536) {
      found = std::make_pair(name, static_cast<int>(*port));
      break;
    }
  }
  ::closedir(d);
  return found;
}

// A port file still being written may not parse yet; one that stays bad this long is an error.
constexpr int64_t kPortFileSettleSec = 2;

Result<std::optional<PublishedEndpoint>> PollDriverPortFile() {
  const std::string dir = DriverOutputDir();
  auto file = FindPortFile(dir);
  if (!file) return std::optional<PublishedEndpoint>();
  const std::string path = JoinPath(dir, file->first);
  auto text = ReadFileBounded(path, 1 << 20);
  if (!text.ok()) return text.status();
  auto plan = ParseSlotPlan(*text);
  if (!plan.ok()) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && std::time(nullptr) - st.st_mtime < kPortFileSettleSec) {
      return std::optional<PublishedEndpoint>();  // still being written
    }
    return plan.status().WithContext("the horovod driver's port file " + path);
  }
  nlohmann::json normalized = nlohmann::json::array();
  for (const HorovodSlot& slot : *plan) {
    normalized.push_back({{"hostname", slot.hostname},
                          {"rank", slot.rank},
                          {"localRank", slot.local_rank},
                          {"crossRank", slot.cross_rank},
                          {"size", slot.size},
                          {"localSize", slot.local_size},
                          {"crossSize", slot.cross_size}});
  }
  return std::optional<PublishedEndpoint>(PublishedEndpoint{"", normalized.dump(), file->second});
}

// A worker's slot in the debug driver's plan, as TonY's executors pick it: among the plan's slots
// on the worker's host (by local rank), the one at the worker's position among that host's
// workers (by task index).
Result<HorovodSlot> SlotFromPlan(const std::vector<HorovodSlot>& plan,
                                 const std::vector<std::string>& workers, int index) {
  const std::string host = PeerHost(workers[index]);
  int position = 0;
  for (int i = 0; i < index; ++i) {
    if (PeerHost(workers[i]) == host) ++position;
  }
  std::vector<HorovodSlot> on_host;
  for (const HorovodSlot& slot : plan) {
    if (slot.hostname == host) on_host.push_back(slot);
  }
  std::sort(on_host.begin(), on_host.end(),
            [](const HorovodSlot& a, const HorovodSlot& b) { return a.local_rank < b.local_rank; });
  if (position >= static_cast<int>(on_host.size())) {
    return InvalidArgument("the horovod driver's slot plan has " + std::to_string(on_host.size()) +
                           " slot(s) on host " + host +
                           ", none for worker:" + std::to_string(index) + " (the " +
                           std::to_string(position + 1) + ". worker there)");
  }
  return on_host[position];
}

// TonY makes Horovod's workers wait for the driver's callback likewise.
Status WaitForHorovodDriver(const Cluster& cluster) {
  auto driver = cluster.find("driver");
  if (driver == cluster.end() || driver->second.empty()) return Status::Ok();
  const std::string& address = driver->second.front();
  auto driver_address = ParseHostPort(address, "the horovod driver's address");
  if (!driver_address.ok()) return Internal(driver_address.status().message());
  TONY_LOG(kInfo) << "waiting for the horovod rendezvous at " << address;
  if (!WaitForTcpListener(driver_address->host, driver_address->port, kHorovodDriverWaitMs)) {
    return DeadlineExceeded("the horovod driver at " + address +
                            " did not serve the rendezvous within 120 s");
  }
  return Status::Ok();
}

class Horovod final : public Framework {
 public:
  std::string_view name() const override { return "horovod"; }
  Status Validate(const JobSpec& spec) const override { return ValidateHorovod(spec); }
  Status AddRoles(Configuration& conf, const std::string& python) const override {
    return AddHorovodDriver(conf, python);
  }
  Result<EnvMap> TaskEnv(const TaskEnvInput& in) const override { return HorovodEnv(in); }
  Status PrepareTask(const JobSpec& spec, const std::string& role) const override {
    if (role != "driver") return Status::Ok();
    // Emptied: a port file left by an earlier attempt in this directory would be read as new.
    const std::string dir = DriverOutputDir();
    TONY_RETURN_IF_ERROR(RemoveAll(dir));
    TONY_RETURN_IF_ERROR(MakeDirs(dir));
    if (spec.horovod_debug_driver) return Status::Ok();
    return WriteFileAtomic(std::string(kHorovodDriverFile), std::string(kHorovodDriverScript));
  }
  Status WaitUntilReady(const JobSpec& spec, const std::string& role,
                        const Cluster& cluster) const override {
    // In debug mode the coordinator held the spec until the driver published its rendezvous.
    if (role == "driver" || spec.horovod_debug_driver) return Status::Ok();
    return WaitForHorovodDriver(cluster);
  }
  std::string SpecAwaits(const JobSpec& spec, const std::string& role) const override {
    return spec.horovod_debug_driver && role != "driver" ? "driver:0" : "";
  }
  Result<std::optional<PublishedEndpoint>> PollPublished(const JobSpec& spec,
                                                         const std::string& role) const override {
    if (!spec.horovod_debug_driver || role != "driver") return std::optional<PublishedEndpoint>();
    return PollDriverPortFile();
  }
  std::string ServesPeers(const JobSpec& /*spec*/, const std::string& role) const override {
    return role == "driver" ? "it serves the rendezvous the horovod workers need" : "";
  }
};

}  // namespace

std::unique_ptr<Framework> MakeHorovod() { return std::make_unique<Horovod>(); }

std::vector<HorovodSlot> HorovodSlots(const std::vector<std::string>& workers) {
  std::vector<HostSlots> hosts = HostsInOrder(workers);
  std::vector<HorovodSlot> slots(workers.size());
  std::vector<int> seen_on_host(hosts.size(), 0);
  for (size_t i = 0; i < workers.size(); ++i) {
    std::string host = PeerHost(workers[i]);
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
    env["DRIVER_OUTPUT_PATH"] = DriverOutputDir();  // TonY's: where a debug driver's port file goes
    return env;
  }
  if (in.role != "worker" || in.index < 0 || in.index >= static_cast<int>(workers->second.size())) {
    return env;
  }
  for (const auto& address : workers->second) {
    TONY_RETURN_IF_ERROR(ParseHostPort(address, "a worker's address in the cluster spec").status());
  }
  auto driver = in.cluster.find("driver");
  std::string rendezvous = driver != in.cluster.end() && !driver->second.empty()
                               ? driver->second.front()
                               : workers->second.front();
  HorovodSlot slot;
  if (in.spec != nullptr && in.spec->horovod_debug_driver) {
    // The debug driver's own port and slot plan, from its port file (PollDriverPortFile).
    auto published = in.published.find("driver:0");
    if (published == in.published.end()) {
      return FailedPrecondition("the horovod driver driver:0 published no rendezvous");
    }
    rendezvous = published->second.address;  // the driver's registered host, its server's port
    TONY_ASSIGN_OR_RETURN(std::vector<HorovodSlot> plan, ParseSlotPlan(published->second.info));
    TONY_ASSIGN_OR_RETURN(slot, SlotFromPlan(plan, workers->second, in.index));
  } else {
    slot = HorovodSlots(workers->second)[in.index];
  }
  TONY_ASSIGN_OR_RETURN(HostPort rdzv, ParseHostPort(rendezvous, "the horovod rendezvous address"));
  env["HOROVOD_CONTROLLER"] = "gloo";
  env["HOROVOD_CPU_OPERATIONS"] = "gloo";
  env["HOROVOD_GLOO_TIMEOUT_SECONDS"] = "2000";
  env["HOROVOD_GLOO_RENDEZVOUS_ADDR"] = rdzv.host;
  env["HOROVOD_GLOO_RENDEZVOUS_PORT"] = std::to_string(rdzv.port);
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
