// The coordinator's server side of the control plane's limits (issue 28): the job secret checked
// on a call's headers before its message is read, and the bounds on what one peer can make the
// server hold.
//
// Thread-safety: SecretMatches and SecretInMetadata are pure. The credentials are handed to one
// grpc::ServerBuilder; gRPC calls their check from its own threads, each call on its own.
#pragma once

#include <grpc/grpc_security.h>
#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "rpc/tls.h"

namespace tony::rpc {

// What the server accepts in one request: kMaxRequestBytes (rpc/client.h). The largest
// legitimate requests are a ReportResult carrying the preprocess task's model parameters (capped
// at 1 MiB, executor/report.cc) and a Heartbeat carrying a stall's Python stacks (capped at 1 MiB,
// executor/stall_watch.cc); the rest are a few hundred bytes, a Publish's slot plan a few KiB.
// 4 MiB leaves the largest four times the room (and is gRPC's own default). A larger request is
// refused RESOURCE_EXHAUSTED before any handler sees it.
// How much memory gRPC's buffers for the control plane may take together (its ResourceQuota),
// and how many calls one connection may have open at once: a job has one connection per task
// and the client, each with at most a handful of calls in flight.
inline constexpr size_t kServerMemoryQuotaBytes = size_t{64} * 1024 * 1024;
inline constexpr int kMaxConcurrentStreams = 64;
inline constexpr int kMaxServerThreads = 16;

// True when `given` equals `secret`, comparing every byte whatever the first difference (no
// timing leak of the secret's prefix); an empty secret matches nothing.
bool SecretMatches(std::string_view given, std::string_view secret);

// True when the call headers `metadata` carry `secret` under kSecretMetadataKey.
bool SecretInMetadata(const grpc_metadata* metadata, size_t count, std::string_view secret);

// Credentials for a listening port whose calls are refused UNAUTHENTICATED before their message
// is read unless their headers carry `secret`. Without `tls` (the local engine, loopback) the port
// is plain; with it (YARN) it is TLS with the job's certificate, and a client must present that
// same certificate (mutual TLS pinned to it, rpc/tls.h) before a call reaches the secret check.
// gRPC's own InsecureServerCredentials() and SslServerCredentials() take no AuthMetadataProcessor
// that runs before the message is read, so these build the core's credentials with one attached.
std::shared_ptr<grpc::ServerCredentials> SecretCheckingServerCredentials(
    std::string secret, std::optional<JobTls> tls = std::nullopt);

}  // namespace tony::rpc
