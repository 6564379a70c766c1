#include "rpc/client.h"

#include <chrono>

#include "rpc/server_auth.h"

namespace tony::rpc {

bool CallHasSecret(const grpc::ServerContextBase& context, const std::string& secret) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(kSecretMetadataKey);
  if (it == metadata.end()) return false;
  return SecretMatches(std::string_view(it->second.data(), it->second.size()), secret);
}

Status FromGrpc(const grpc::Status& status, const std::string& what) {
  if (status.ok()) return Status::Ok();
  StatusCode code = StatusCode::kInternal;
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      code = StatusCode::kUnavailable;
      break;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      code = StatusCode::kDeadlineExceeded;
      break;
    case grpc::StatusCode::UNAUTHENTICATED:
      code = StatusCode::kUnauthenticated;
      break;
    case grpc::StatusCode::INVALID_ARGUMENT:
      code = StatusCode::kInvalidArgument;
      break;
    case grpc::StatusCode::NOT_FOUND:
      code = StatusCode::kNotFound;
      break;
    case grpc::StatusCode::FAILED_PRECONDITION:
      code = StatusCode::kFailedPrecondition;
      break;
    case grpc::StatusCode::CANCELLED:
      code = StatusCode::kCancelled;
      break;
    default:
      break;
  }
  return Status(code, what + ": " + status.error_message());
}

CoordinatorClient::CoordinatorClient(const std::string& address, std::string secret,
                                     const std::optional<JobTls>& tls)
    : address_(address), secret_(std::move(secret)), tls_(tls) {
  grpc::ChannelArguments args;
  // Fail fast when the coordinator is gone instead of backing off for up to two minutes.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  args.SetMaxReceiveMessageSize(kMaxResponseBytes);
  args.SetMaxSendMessageSize(kMaxRequestBytes);
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (tls) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = tls->cert_pem;  // the job's certificate is the only one trusted
    ssl.pem_private_key = tls->key_pem;
    ssl.pem_cert_chain = tls->cert_pem;
    credentials = grpc::SslCredentials(ssl);
    // Whatever host the AM is on, the certificate is for this one name (rpc/tls.h).
    args.SetSslTargetNameOverride(kJobTlsServerName);
  }
  channel_ = grpc::CreateCustomChannel(address, credentials, args);
  stub_ = Coordinator::NewStub(channel_);
}

std::unique_ptr<CoordinatorClient> CoordinatorClient::WithAddress(
    const std::string& address) const {
  return std::make_unique<CoordinatorClient>(address, secret_, tls_);
}

void CoordinatorClient::Prepare(grpc::ClientContext* context, int timeout_ms) const {
  context->AddMetadata(kSecretMetadataKey, secret_);
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
}

Status CoordinatorClient::RegisterTask(const RegisterTaskRequest& request, int timeout_ms) {
  grpc::ClientContext context;
  Prepare(&context, timeout_ms);
  RegisterTaskResponse response;
  return FromGrpc(stub_->RegisterTask(&context, request, &response), "RegisterTask");
}

Result<GetClusterSpecResponse> CoordinatorClient::GetClusterSpec(
    const GetClusterSpecRequest& request, int timeout_ms) {
  grpc::ClientContext context;
  Prepare(&context, timeout_ms);
  GetClusterSpecResponse response;
  Status s = FromGrpc(stub_->GetClusterSpec(&context, request, &response), "GetClusterSpec");
  if (!s.ok()) return s;
  return response;
}

Result<HeartbeatResponse> CoordinatorClient::Heartbeat(const HeartbeatRequest& request,
                                                       int timeout_ms) {
  grpc::ClientContext context;
  Prepare(&context, timeout_ms);
  HeartbeatResponse response;
  Status s = FromGrpc(stub_->Heartbeat(&context, request, &response), "Heartbeat");
  if (!s.ok()) return s;
  return response;
}

Status CoordinatorClient::ReportResult(const ReportResultRequest& request, int timeout_ms) {
  grpc::ClientContext context;
  Prepare(&context, timeout_ms);
  ReportResultResponse response;
  return FromGrpc(stub_->ReportResult(&context, request, &response), "ReportResult");
}

Result<JobStatus> CoordinatorClient::GetJobStatus(const GetJobStatusRequest& request,
                                                  int timeout_ms) {
  grpc::ClientContext context;
  Prepare(&context, timeout_ms);
  JobStatus response;
  Status s = FromGrpc(stub_->GetJobStatus(&context, request, &response), "GetJobStatus");
  if (!s.ok()) return s;
  return response;
}

Status CoordinatorClient::KillJob(const KillJobRequest& request, int timeout_ms) {
  grpc::ClientContext context;
  Prepare(&context, timeout_ms);
  KillJobResponse response;
  return FromGrpc(stub_->KillJob(&context, request, &response), "KillJob");
}

}  // namespace tony::rpc
