// ControlPlane: the executor's calls to the coordinator (rpc/tony.proto) without blocking its
// loop. Each call is started on gRPC's asynchronous API and completes on one completion-queue
// thread, which posts the callback to the EventLoop (executor/event_loop.h); callbacks run on the
// loop's thread. The asynchronous API rather than blocking calls on a worker thread: the
// heartbeats must go on while a GetClusterSpec long-poll (up to 20 s) is in flight, and one
// thread waiting on a completion queue serves any number of calls in flight.
//
// TaskRun and ResultReporter see it as CoordinatorCalls, the calls' interface; the in-process
// tests (tests/unit/executor_task_run_test.cc) give them a fake that answers, refuses, or stays
// silent until the call's deadline.
//
// Thread-safety: construct, call and destroy on the loop's thread. The loop must outlive this.
#pragma once

#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "executor/event_loop.h"
#include "rpc/client.h"

namespace tony {

// The executor's calls to the coordinator. Each `done` runs later on the loop's thread, never
// within the call, with the answer or the call's error (kDeadlineExceeded after `timeout_ms`,
// kUnavailable when the coordinator cannot be reached).
class CoordinatorCalls {
 public:
  virtual ~CoordinatorCalls() = default;
  virtual void RegisterTask(const rpc::RegisterTaskRequest& request, int timeout_ms,
                            std::function<void(Status)> done) = 0;
  virtual void GetClusterSpec(const rpc::GetClusterSpecRequest& request, int timeout_ms,
                              std::function<void(Result<rpc::GetClusterSpecResponse>)> done) = 0;
  virtual void Heartbeat(const rpc::HeartbeatRequest& request, int timeout_ms,
                         std::function<void(Result<rpc::HeartbeatResponse>)> done) = 0;
  virtual void ReportResult(const rpc::ReportResultRequest& request, int timeout_ms,
                            std::function<void(Status)> done) = 0;
  virtual void Publish(const rpc::PublishRequest& request, int timeout_ms,
                       std::function<void(Status)> done) = 0;
  // The coordinator's address, for messages.
  virtual const std::string& address() const = 0;
  // Later calls go to `address` (a new coordinator: docs/am-restart.md §4); calls in flight
  // finish as they would have.
  virtual void Retarget(const std::string& address) = 0;
};

// Where the job's coordinator listens now: after an AM restart, a new attempt's address
// (docs/am-restart.md §4). `done` runs later on the loop's thread with the address, or an error
// when it cannot be read (the task then keeps trying the address it has).
class CoordinatorLocator {
 public:
  virtual ~CoordinatorLocator() = default;
  virtual void Locate(std::function<void(Result<std::string>)> done) = 0;
};

class ControlPlane final : public CoordinatorCalls {
 public:
  // One call in flight: its context, response and status, and the callback to run on the loop.
  class PendingCall {
   public:
    virtual ~PendingCall() = default;
    virtual void Complete() = 0;
    grpc::ClientContext context;
    grpc::Status status;
  };

  ControlPlane(rpc::CoordinatorClient& client, ExecutorLoop& loop);
  ~ControlPlane() override;
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  void RegisterTask(const rpc::RegisterTaskRequest& request, int timeout_ms,
                    std::function<void(Status)> done) override;
  void GetClusterSpec(const rpc::GetClusterSpecRequest& request, int timeout_ms,
                      std::function<void(Result<rpc::GetClusterSpecResponse>)> done) override;
  void Heartbeat(const rpc::HeartbeatRequest& request, int timeout_ms,
                 std::function<void(Result<rpc::HeartbeatResponse>)> done) override;
  void ReportResult(const rpc::ReportResultRequest& request, int timeout_ms,
                    std::function<void(Status)> done) override;
  void Publish(const rpc::PublishRequest& request, int timeout_ms,
               std::function<void(Status)> done) override;

  const std::string& address() const override { return client_->address(); }
  void Retarget(const std::string& address) override;

 private:
  template <typename Response, typename Start, typename Done>
  void Issue(int timeout_ms, const char* what, Start start, Done done);
  void DrainCompletions();

  rpc::CoordinatorClient* client_;  // the caller's, or the last of retargeted_
  // The clients Retarget made, kept for the process's life: calls in flight may use their stubs.
  std::vector<std::unique_ptr<rpc::CoordinatorClient>> retargeted_;
  ExecutorLoop& loop_;
  grpc::CompletionQueue cq_;
  std::set<PendingCall*> pending_;  // started, callback not yet run (loop thread only)
  std::thread cq_thread_;
};

}  // namespace tony
