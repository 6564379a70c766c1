// The gRPC face of the coordinator: checks the job secret, then posts each call into the
// coordinator's loop. Nothing here touches job state.
#include <grpcpp/grpcpp.h>

#include "coordinator/coordinator.h"
#include "rpc/client.h"

namespace tony {

class Coordinator::Service final : public rpc::Coordinator::CallbackService {
 public:
  explicit Service(Coordinator* coordinator) : c_(coordinator) {}

  grpc::ServerUnaryReactor* RegisterTask(grpc::CallbackServerContext* ctx,
                                         const rpc::RegisterTaskRequest* req,
                                         rpc::RegisterTaskResponse* /*resp*/) override {
    auto* reactor = ctx->DefaultReactor();
    if (!Authorized(ctx, reactor)) return reactor;
    asio::post(c_->io(), [this, req, reactor] { c_->HandleRegister(*req, reactor); });
    return reactor;
  }

  grpc::ServerUnaryReactor* GetClusterSpec(grpc::CallbackServerContext* ctx,
                                           const rpc::GetClusterSpecRequest* req,
                                           rpc::GetClusterSpecResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    if (!Authorized(ctx, reactor)) return reactor;
    asio::post(c_->io(),
               [this, req, resp, reactor] { c_->HandleGetClusterSpec(*req, resp, reactor); });
    return reactor;
  }

  grpc::ServerUnaryReactor* Heartbeat(grpc::CallbackServerContext* ctx,
                                      const rpc::HeartbeatRequest* req,
                                      rpc::HeartbeatResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    if (!Authorized(ctx, reactor)) return reactor;
    asio::post(c_->io(), [this, req, resp, reactor] { c_->HandleHeartbeat(*req, resp, reactor); });
    return reactor;
  }

  grpc::ServerUnaryReactor* ReportResult(grpc::CallbackServerContext* ctx,
                                         const rpc::ReportResultRequest* req,
                                         rpc::ReportResultResponse* /*resp*/) override {
    auto* reactor = ctx->DefaultReactor();
    if (!Authorized(ctx, reactor)) return reactor;
    asio::post(c_->io(), [this, req, reactor] { c_->HandleReportResult(*req, reactor); });
    return reactor;
  }

  grpc::ServerUnaryReactor* Publish(grpc::CallbackServerContext* ctx,
                                    const rpc::PublishRequest* req,
                                    rpc::PublishResponse* /*resp*/) override {
    auto* reactor = ctx->DefaultReactor();
    if (!Authorized(ctx, reactor)) return reactor;
    asio::post(c_->io(), [this, req, reactor] { c_->HandlePublish(*req, reactor); });
    return reactor;
  }

  grpc::ServerUnaryReactor* GetJobStatus(grpc::CallbackServerContext* ctx,
                                         const rpc::GetJobStatusRequest* req,
                                         rpc::JobStatus* resp) override {
    auto* reactor = ctx->DefaultReactor();
    if (!Authorized(ctx, reactor)) return reactor;
    asio::post(c_->io(),
               [this, req, resp, reactor] { c_->HandleGetJobStatus(*req, resp, reactor); });
    return reactor;
  }

  grpc::ServerUnaryReactor* KillJob(grpc::CallbackServerContext* ctx,
                                    const rpc::KillJobRequest* req,
                                    rpc::KillJobResponse* /*resp*/) override {
    auto* reactor = ctx->DefaultReactor();
    if (!Authorized(ctx, reactor)) return reactor;
    asio::post(c_->io(), [this, req, reactor] { c_->HandleKill(*req, reactor); });
    return reactor;
  }

 private:
  bool Authorized(grpc::CallbackServerContext* ctx, grpc::ServerUnaryReactor* reactor) {
    if (rpc::CallHasSecret(*ctx, c_->secret())) return true;
    reactor->Finish(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                                 "missing or wrong job secret (x-tony-secret)"));
    return false;
  }

  Coordinator* c_;
};

std::unique_ptr<grpc::Service> MakeCoordinatorService(Coordinator* c) {
  return std::make_unique<Coordinator::Service>(c);
}

}  // namespace tony
