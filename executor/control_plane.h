// ControlPlane: the executor's calls to the coordinator (rpc/tony.proto) without blocking its
// loop. Each call is started on gRPC's asynchronous API and completes on one completion-queue
// thread, which posts the callback to the EventLoop (executor/event_loop.h); callbacks run on the
// loop's thread. The asynchronous API rather than blocking calls on a worker thread: the
// heartbeats must go on while a GetClusterSpec long-poll (up to 20 s) is in flight, and one
// thread waiting on a completion queue serves any number of calls in flight.
//
// Thread-safety: construct, call and destroy on the loop's thread. The loop must outlive this.
#pragma once

#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <set>
#include <thread>

#include "common/status.h"
#include "executor/event_loop.h"
#include "rpc/client.h"

namespace tony {

class ControlPlane {
 public:
  // One call in flight: its context, response and status, and the callback to run on the loop.
  class PendingCall {
   public:
    virtual ~PendingCall() = default;
    virtual void Complete() = 0;
    grpc::ClientContext context;
    grpc::Status status;
  };

  ControlPlane(rpc::CoordinatorClient& client, EventLoop& loop);
  ~ControlPlane();
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  void RegisterTask(const rpc::RegisterTaskRequest& request, int timeout_ms,
                    std::function<void(Status)> done);
  void GetClusterSpec(const rpc::GetClusterSpecRequest& request, int timeout_ms,
                      std::function<void(Result<rpc::GetClusterSpecResponse>)> done);
  void Heartbeat(const rpc::HeartbeatRequest& request, int timeout_ms,
                 std::function<void(Result<rpc::HeartbeatResponse>)> done);
  void ReportResult(const rpc::ReportResultRequest& request, int timeout_ms,
                    std::function<void(Status)> done);
  void Publish(const rpc::PublishRequest& request, int timeout_ms,
               std::function<void(Status)> done);

  const std::string& address() const { return client_.address(); }

 private:
  template <typename Response, typename Start, typename Done>
  void Issue(int timeout_ms, const char* what, Start start, Done done);
  void DrainCompletions();

  rpc::CoordinatorClient& client_;
  EventLoop& loop_;
  grpc::CompletionQueue cq_;
  std::set<PendingCall*> pending_;  // started, callback not yet run (loop thread only)
  std::thread cq_thread_;
};

}  // namespace tony
