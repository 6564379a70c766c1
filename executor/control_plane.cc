#include "executor/control_plane.h"

#include <type_traits>
#include <utility>

namespace tony {
namespace {

template <typename Response>
class TypedCall : public ControlPlane::PendingCall {
 public:
  std::function<void(TypedCall&)> on_complete;
  Response response;
  std::unique_ptr<grpc::ClientAsyncResponseReader<Response>> reader;
  void Complete() override { on_complete(*this); }
};

}  // namespace

ControlPlane::ControlPlane(rpc::CoordinatorClient& client, ExecutorLoop& loop)
    : client_(&client), loop_(loop) {
  cq_thread_ = std::thread([this] { DrainCompletions(); });
}

ControlPlane::~ControlPlane() {
  for (PendingCall* call : pending_) call->context.TryCancel();
  cq_.Shutdown();
  cq_thread_.join();
}

void ControlPlane::DrainCompletions() {
  void* tag = nullptr;
  bool ok = false;
  while (cq_.Next(&tag, &ok)) {
    // The closure owns the call: if the loop ends first, dropping it frees the call.
    std::shared_ptr<PendingCall> call(static_cast<PendingCall*>(tag));
    loop_.Post([this, call] {
      pending_.erase(call.get());
      call->Complete();
    });
  }
}

template <typename Response, typename Start, typename Done>
void ControlPlane::Issue(int timeout_ms, const char* what, Start start, Done done) {
  auto* call = new TypedCall<Response>();
  client_->Prepare(&call->context, timeout_ms);
  call->on_complete = [what, done = std::move(done)](TypedCall<Response>& c) {
    Status s = rpc::FromGrpc(c.status, what);
    // Result<T> converts from Status, so test the callback's exact type, not what it accepts.
    if constexpr (std::is_same_v<Done, std::function<void(Status)>>) {
      done(s);
    } else {
      if (!s.ok()) {
        done(Result<Response>(s));
      } else {
        done(Result<Response>(std::move(c.response)));
      }
    }
  };
  call->reader = start(&call->context, &cq_);
  call->reader->StartCall();
  pending_.insert(call);
  call->reader->Finish(&call->response, &call->status, static_cast<PendingCall*>(call));
}

void ControlPlane::Retarget(const std::string& address) {
  retargeted_.push_back(client_->WithAddress(address));
  client_ = retargeted_.back().get();
}

void ControlPlane::RegisterTask(const rpc::RegisterTaskRequest& request, int timeout_ms,
                                std::function<void(Status)> done) {
  Issue<rpc::RegisterTaskResponse>(
      timeout_ms, "RegisterTask",
      [&](grpc::ClientContext* ctx, grpc::CompletionQueue* cq) {
        return client_->stub().PrepareAsyncRegisterTask(ctx, request, cq);
      },
      std::move(done));
}

void ControlPlane::GetClusterSpec(const rpc::GetClusterSpecRequest& request, int timeout_ms,
                                  std::function<void(Result<rpc::GetClusterSpecResponse>)> done) {
  Issue<rpc::GetClusterSpecResponse>(
      timeout_ms, "GetClusterSpec",
      [&](grpc::ClientContext* ctx, grpc::CompletionQueue* cq) {
        return client_->stub().PrepareAsyncGetClusterSpec(ctx, request, cq);
      },
      std::move(done));
}

void ControlPlane::Heartbeat(const rpc::HeartbeatRequest& request, int timeout_ms,
                             std::function<void(Result<rpc::HeartbeatResponse>)> done) {
  Issue<rpc::HeartbeatResponse>(
      timeout_ms, "Heartbeat",
      [&](grpc::ClientContext* ctx, grpc::CompletionQueue* cq) {
        return client_->stub().PrepareAsyncHeartbeat(ctx, request, cq);
      },
      std::move(done));
}

void ControlPlane::ReportResult(const rpc::ReportResultRequest& request, int timeout_ms,
                                std::function<void(Status)> done) {
  Issue<rpc::ReportResultResponse>(
      timeout_ms, "ReportResult",
      [&](grpc::ClientContext* ctx, grpc::CompletionQueue* cq) {
        return client_->stub().PrepareAsyncReportResult(ctx, request, cq);
      },
      std::move(done));
}

void ControlPlane::Publish(const rpc::PublishRequest& request, int timeout_ms,
                           std::function<void(Status)> done) {
  Issue<rpc::PublishResponse>(
      timeout_ms, "Publish",
      [&](grpc::ClientContext* ctx, grpc::CompletionQueue* cq) {
        return client_->stub().PrepareAsyncPublish(ctx, request, cq);
      },
      std::move(done));
}

}  // namespace tony
