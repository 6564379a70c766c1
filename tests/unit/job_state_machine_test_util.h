// The job state machine's test fixture and helpers (spec builders, command filters, a fixture on
// simulated time), shared by job_state_machine_test.cc and job_state_machine_states_test.cc.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "coordinator/core/job_state_machine.h"
#include "engine/yarn/container_exit.h"

namespace tony::core::testing {

// The tests speak YARN's container exit statuses; the core sees the reasons they map to.
using engine::kYarnAborted;
using engine::kYarnPreempted;
inline constexpr int kExitStoppedByCoordinator = engine::kYarnKilledByAppMaster;

// A container's end with YARN's `status`, as the YARN engine reports it (engine/engine.h).
inline TaskExited ContainerExit(const TaskId& id, int attempt, int status,
                                const std::string& diagnostics) {
  TaskExited e{id, attempt, status, diagnostics};
  e.source = ExitSource::kContainer;
  e.reason = engine::YarnExitReason(status);
  e.reason_words = engine::YarnExitWords(status);
  return e;
}

struct RoleOptions {
  std::string name;
  int instances = 1;
  bool untracked = false;
  bool sidecar = false;
  bool stop_on_failure = false;
  int stage = 0;  // RoleSpec::stage
};

// A JobSpec as BuildJobSpec would make it: roles sorted by name, chief "chief" else worker:0.
inline JobSpec MakeSpec(std::vector<RoleOptions> roles) {
  JobSpec spec;
  std::sort(roles.begin(), roles.end(),
            [](const RoleOptions& a, const RoleOptions& b) { return a.name < b.name; });
  for (const RoleOptions& r : roles) {
    RoleSpec role;
    role.name = r.name;
    role.instances = r.instances;
    role.memory_mb = 1024 * r.instances;
    role.vcores = 2;
    role.gpus = r.name == "worker" ? 1 : 0;
    role.untracked = r.untracked;
    role.sidecar = r.sidecar;
    role.stop_on_failure = r.stop_on_failure;
    role.stage = r.stage;
    spec.roles.push_back(role);
    if (r.name == "chief") spec.chief_role = "chief";
    if (r.name == "worker" && spec.chief_role.empty()) spec.chief_role = "worker";
  }
  return spec;
}

template <class T>
std::vector<T> All(const std::vector<Command>& commands) {
  std::vector<T> found;
  for (const Command& c : commands) {
    if (const T* t = std::get_if<T>(&c)) found.push_back(*t);
  }
  return found;
}

template <class T>
bool Has(const std::vector<Command>& commands) {
  return !All<T>(commands).empty();
}

inline TaskId T(const std::string& role, int index) { return TaskId{role, index}; }

class JobStateMachineTest : public ::testing::Test {
 protected:
  void Create(JobSpec spec) { sm_ = std::make_unique<JobStateMachine>(std::move(spec)); }

  std::vector<Command> Send(const Event& e) { return sm_->Handle(e, now_); }
  std::vector<Command> Start() { return Send(tony::core::Start{}); }
  std::vector<Command> Allocate(const std::string& role) {
    return Send(ContainerAllocated{"c" + std::to_string(next_container_++), role, "node1"});
  }
  // Starts the job and allocates a container for every task.
  void StartAndAllocate() {
    Start();
    for (const TaskRecord& t : std::vector<TaskRecord>(sm_->tasks())) Allocate(t.id.role);
  }
  std::vector<Command> Register(const TaskId& id, int attempt = 0) {
    return Send(TaskRegistered{id, attempt, "host-" + id.ToString(), 2000 + id.index});
  }
  // Starts, allocates and registers every task: all are RUNNING.
  void StartAll() {
    StartAndAllocate();
    for (const TaskRecord& t : std::vector<TaskRecord>(sm_->tasks())) Register(t.id);
  }
  std::vector<Command> Exit(const TaskId& id, int code, const std::string& diagnostics = "") {
    return Send(TaskExited{id, 0, code, diagnostics});
  }
  // The executor reports its user process ended by `signal` (`stopped`: the executor sent it).
  std::vector<Command> Signalled(const TaskId& id, int signal, bool stopped) {
    TaskExited e{id, 0, 0, ""};
    e.signal = signal;
    e.stopped = stopped;
    return Send(e);
  }
  // The executor stopped its user process on tony's request (SIGTERM).
  std::vector<Command> Stopped(const TaskId& id) { return Signalled(id, SIGTERM, true); }
  // The engine saw the container end with no report from the executor.
  std::vector<Command> ContainerEnded(const TaskId& id, int status,
                                      const std::string& diagnostics = "") {
    return Send(ContainerExit(id, 0, status, diagnostics));
  }
  std::vector<Command> TickAt(int64_t t) {
    now_ = t;
    return Send(Tick{});
  }
  TaskState State(const TaskId& id) { return sm_->FindTask(id)->state; }

  std::unique_ptr<JobStateMachine> sm_;
  int64_t now_ = 1000;
  int next_container_ = 0;
};

}  // namespace tony::core::testing
