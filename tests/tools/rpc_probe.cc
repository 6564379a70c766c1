// tony_rpc_probe <host:port> <secret> [--pad BYTES [--calls N]]: calls GetJobStatus with the given
// secret and prints "OK <phase>" or the error, for tests of the control plane's authentication.
//
// With --pad, the request carries BYTES more of an unknown field (which a coordinator ignores),
// sent over a channel of its own without the client's limit on requests, as a peer flooding the
// port would; the probe makes N such calls one after another and prints each one's gRPC code.
#include <cstdlib>
#include <iostream>
#include <string>

#include "rpc/client.h"

namespace {

// The gRPC code names, as the status's error_code() reads them in tests.
const char* GrpcCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    default:
      return "OTHER";
  }
}

int PaddedCalls(const std::string& address, const std::string& secret, long pad_bytes, long calls) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  auto stub = tony::rpc::Coordinator::NewStub(channel);
  tony::rpc::GetJobStatusRequest req;
  req.set_after_version(-1);
  constexpr int kUnusedFieldNumber = 1000;
  req.GetReflection()->MutableUnknownFields(&req)->AddLengthDelimited(
      kUnusedFieldNumber, std::string(static_cast<size_t>(pad_bytes), 'x'));
  int ok = 0;
  for (long i = 0; i < calls; ++i) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(tony::rpc::kSecretMetadataKey, secret);
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    tony::rpc::JobStatus resp;
    grpc::Status status = stub->GetJobStatus(&ctx, req, &resp);
    std::cout << GrpcCodeName(status.error_code()) << " " << status.error_message() << "\n";
    if (status.ok()) ++ok;
  }
  return ok == calls ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  long pad_bytes = -1;
  long calls = 1;
  for (int i = 3; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--pad") pad_bytes = std::atol(argv[i + 1]);
    if (flag == "--calls") calls = std::atol(argv[i + 1]);
  }
  if (argc < 3 || argc % 2 == 0) {
    std::cerr << "usage: tony_rpc_probe <host:port> <secret> [--pad BYTES [--calls N]]\n";
    return 2;
  }
  if (pad_bytes >= 0) return PaddedCalls(argv[1], argv[2], pad_bytes, calls);
  tony::rpc::CoordinatorClient client(argv[1], argv[2]);
  tony::rpc::GetJobStatusRequest req;
  req.set_after_version(-1);
  auto status = client.GetJobStatus(req, 5000);
  if (!status.ok()) {
    std::cout << tony::StatusCodeName(status.status().code()) << " " << status.status().message()
              << "\n";
    return 1;
  }
  std::cout << "OK " << tony::rpc::JobPhase_Name(status->phase()) << "\n";
  return 0;
}
