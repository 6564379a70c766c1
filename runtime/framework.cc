#include "runtime/framework.h"

#include "common/files.h"
#include "common/log.h"
#include "common/net.h"
#include "common/strings.h"
#include "runtime/horovod_driver.h"

namespace tony::runtime {
namespace {

constexpr int64_t kHorovodDriverWaitMs = 120'000;

bool IsHorovod(const std::string& framework) { return framework == "horovod"; }

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

}  // namespace

void AddFrameworkRoles(Configuration& conf, const std::string& python) {
  if (IsHorovod(ToLower(Trim(conf.GetOr("tony.application.framework", ""))))) {
    AddHorovodDriver(conf, python);
  }
}

Status PrepareTask(const JobSpec& spec, const std::string& role) {
  if (IsHorovod(spec.framework) && role == "driver") {
    return WriteFileAtomic(std::string(kHorovodDriverFile), std::string(kHorovodDriverScript));
  }
  return Status::Ok();
}

Status WaitUntilReady(const JobSpec& spec, const std::string& role, const Cluster& cluster) {
  if (IsHorovod(spec.framework) && role != "driver") return WaitForHorovodDriver(cluster);
  return Status::Ok();
}

}  // namespace tony::runtime
