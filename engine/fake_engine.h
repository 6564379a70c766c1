// FakeEngine: an Engine with no containers behind it, for the coordinator shell's in-process
// tests (tests/unit/coordinator_shell_test.cc). It records every call the coordinator makes and
// lets the test play the cluster: allocations follow requests at once (unless told otherwise),
// launches succeed (unless told otherwise), and the test decides when a container completes.
//
// Threading: the Engine methods are called on the coordinator's loop, as for any engine. The
// test reads the record, waits on it and injects completions from its own thread; the record is
// guarded by a mutex (a test fake, not daemon logic) and injected events are posted to the loop.
#pragma once

#include <asio.hpp>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace tony::engine {

struct FakeEngineOptions {
  bool allocate_on_request = true;  // answer each request with its containers at once
  bool complete_on_stop = true;     // a stopped container completes at once (exit 143, SIGTERM)
  Status start_status;              // what Start returns
  std::string fail_launch_role;     // Launch fails for containers of this role
  std::set<std::string> previous_containers;  // ContainersFromPreviousAttempts
};

// Everything the coordinator asked of the engine, in order of arrival.
struct FakeEngineRecord {
  bool started = false;
  CoordinatorAddress coordinator;  // what Start was given
  int shutdowns = 0;
  rpc::FinalStatus final_status = rpc::UNDECIDED;  // what the last Shutdown was given
  std::string final_message;
  std::vector<ContainerRequest> requests;
  std::vector<LaunchSpec> launches;
  std::vector<std::string> stopped;   // container ids, in the order Stop was called
  std::vector<std::string> released;  // container ids
  std::map<std::string, std::string> container_roles;
};

class FakeEngine final : public Engine {
 public:
  FakeEngine(asio::io_context& io, FakeEngineOptions options);

  // Engine (on the coordinator's loop).
  std::string name() const override { return "fake"; }
  Status Start(EngineListener* listener, const CoordinatorAddress& coordinator) override;
  void RequestContainers(const ContainerRequest& request) override;
  Status Launch(const LaunchSpec& spec) override;
  void Stop(const std::string& container_id, int64_t grace_ms) override;
  void Release(const std::string& container_id) override;
  void Shutdown(rpc::FinalStatus status, const std::string& message) override;
  std::set<std::string> ContainersFromPreviousAttempts() const override {
    return options_.previous_containers;
  }

  // For the test's thread.
  FakeEngineRecord Record() const;
  // Waits (bounded, in real time) until `done` holds for the record; false when it never did.
  [[nodiscard]] bool WaitFor(const std::function<bool(const FakeEngineRecord&)>& done,
                             int timeout_ms = 10'000) const;
  // The container's process is gone, as the engine would see it: posted to the loop.
  void Complete(const std::string& container_id, int exit_code, const std::string& diagnostics);

 private:
  void Changed(const std::function<void(FakeEngineRecord&)>& change);

  asio::io_context& io_;
  FakeEngineOptions options_;
  EngineListener* listener_ = nullptr;  // used on the loop only
  int next_container_ = 1;              // used on the loop only
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  FakeEngineRecord record_;  // guarded by mu_
};

}  // namespace tony::engine
