// tony_rpc_probe <host:port> <secret>: calls GetJobStatus with the given secret and prints
// "OK <phase>" or the error, for tests of the control plane's authentication.
#include <iostream>

#include "rpc/client.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: tony_rpc_probe <host:port> <secret>\n";
    return 2;
  }
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
