// A stand-in for the coordinator's gRPC service in control-plane tests: it answers GetJobStatus
// RUNNING and counts the calls that reached it (so a test can prove a refused call never did).
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>

#include "rpc/tony.grpc.pb.h"

namespace tony::rpc {

class CountingService final : public Coordinator::CallbackService {
 public:
  grpc::ServerUnaryReactor* GetJobStatus(grpc::CallbackServerContext* ctx,
                                         const GetJobStatusRequest* /*req*/,
                                         JobStatus* resp) override {
    handled.fetch_add(1);
    resp->set_phase(RUNNING);
    auto* reactor = ctx->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  std::atomic<int> handled{0};
};

}  // namespace tony::rpc
