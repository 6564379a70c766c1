// MiniCluster: a MiniDFSCluster + MiniYARNCluster JVM (tests/minicluster) run as a child process
// for integration tests (docs/hadoop-ipc.md §7).
//
// Start() runs tests/minicluster/start.sh with a FIFO as its stdin, waits for the
// "MINICLUSTER READY" line, and reads the addresses from the site files it wrote. The destructor
// closes the FIFO (the JVM stops itself on EOF), kills the JVM's session if it lingers, and
// removes the conf/data directory unless $TONY_KEEP_MINICLUSTER is set.
// Thread-safety: one test thread; create and destroy it on the same thread (the child gets
// SIGTERM when the thread that started it exits).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>

#include "common/status.h"

namespace tony::testing {

struct MiniClusterOptions {
  std::string start_script;  // path of tests/minicluster/start.sh
  int node_managers = 2;
  std::chrono::seconds start_timeout{600};  // the first run downloads jars into ~/.m2
};

class MiniCluster {
 public:
  static Result<std::unique_ptr<MiniCluster>> Start(const MiniClusterOptions& options);
  ~MiniCluster();
  MiniCluster(const MiniCluster&) = delete;
  MiniCluster& operator=(const MiniCluster&) = delete;

  const std::string& conf_dir() const { return conf_dir_; }
  // A property from <conf_dir>/<file> (e.g. "yarn-site.xml"); kNotFound if absent.
  Result<std::string> Property(const std::string& file, const std::string& key) const;
  // "host:port" split; e.g. Address("yarn-site.xml", "yarn.resourcemanager.address").
  Result<std::pair<std::string, uint16_t>> Address(const std::string& file,
                                                   const std::string& key) const;
  std::chrono::milliseconds start_duration() const { return start_duration_; }

 private:
  MiniCluster() = default;
  void Stop();

  std::string conf_dir_;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  std::chrono::milliseconds start_duration_{0};
};

}  // namespace tony::testing
