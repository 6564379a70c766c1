// CoordinatorClient: the typed, secret-carrying client of the coordinator's control plane, used by
// executors and by the submitting client. Every call adds the job secret to the call's metadata
// and has a deadline; failures come back as Status with the gRPC reason.
//
// Thread-safety: every method may be called from any thread concurrently (gRPC stubs are).
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "config/key_names.h"
#include "rpc/tls.h"
#include "rpc/tony.grpc.pb.h"

namespace tony::rpc {

inline constexpr char kSecretMetadataKey[] = "x-tony-secret";
// gRPC's message limits, set explicitly at both ends. Requests go to the coordinator, which holds
// each whole in memory while it handles it, so they are held small: kMaxRequestBytes
// (rpc/server_auth.h says why 4 MiB). Responses come from the coordinator to a peer that asked for
// them, and a status of a 10,000-task job must fit (about 3 MiB with every field filled; the
// executor's stderr tail in a task's diagnostics is 8 KiB), hence the larger limit.
inline constexpr int kMaxRequestBytes = 4 * 1024 * 1024;
inline constexpr int kMaxResponseBytes = 64 * 1024 * 1024;
// On YARN the secret travels as this secret key of the container's credentials (the
// ContainerLaunchContext's tokens), never in its environment or command line.
using keys::kJobSecretAlias;

// True when the call carries `secret` (compared in constant time).
bool CallHasSecret(const grpc::ServerContextBase& context, const std::string& secret);

// Maps a gRPC status to ours; `what` names the call ("registering worker:1").
Status FromGrpc(const grpc::Status& status, const std::string& what);

class CoordinatorClient {
 public:
  // With `tls` (YARN) the channel is TLS: the server must present the job's certificate and the
  // client presents it too (rpc/tls.h); without it (the local engine's loopback) it is plain.
  CoordinatorClient(const std::string& address, std::string secret,
                    const std::optional<JobTls>& tls = std::nullopt);

  Status RegisterTask(const RegisterTaskRequest& request, int timeout_ms);
  Result<GetClusterSpecResponse> GetClusterSpec(const GetClusterSpecRequest& request,
                                                int timeout_ms);
  Result<HeartbeatResponse> Heartbeat(const HeartbeatRequest& request, int timeout_ms);
  Status ReportResult(const ReportResultRequest& request, int timeout_ms);
  Result<JobStatus> GetJobStatus(const GetJobStatusRequest& request, int timeout_ms);
  Status KillJob(const KillJobRequest& request, int timeout_ms);

  const std::string& address() const { return address_; }
  // A client of the same job (secret, TLS identity) for another address: a new coordinator.
  std::unique_ptr<CoordinatorClient> WithAddress(const std::string& address) const;

  // For asynchronous callers (the executor's loop, executor/control_plane.h): the stub, and a
  // context carrying the secret and the deadline, as every call above prepares its own.
  Coordinator::Stub& stub() { return *stub_; }
  void Prepare(grpc::ClientContext* context, int timeout_ms) const;

 private:
  std::string address_;
  std::string secret_;
  std::optional<JobTls> tls_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<Coordinator::Stub> stub_;
};

}  // namespace tony::rpc
