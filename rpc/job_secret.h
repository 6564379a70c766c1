// Where a tony process finds its job's control-plane credentials (README, "The job secret"):
// never in a file, an argument or an environment variable the job's own code could read.
//
// - kSecretFdEnv set (the client starting a local coordinator, the local engine starting an
//   executor): the secret alone, from the fd it names, read to EOF once and replaced by
//   /dev/null. The local control plane is on loopback and has no TLS.
// - otherwise (YARN): the secret keys kJobSecretAlias, kJobTlsKeyAlias and kJobTlsCertAlias of
//   $HADOOP_TOKEN_FILE_LOCATION, taken out of that file so that the user's processes, which get
//   the same variable, do not find them. All three or none: a YARN control plane without TLS is
//   refused rather than started in clear (rpc/tls.h).
//
// Call once, at start-up, before any other process is started.
#pragma once

#include <optional>
#include <string>

#include "common/status.h"
#include "rpc/tls.h"

namespace tony::rpc {

struct JobCredentials {
  std::string secret;
  std::optional<JobTls> tls;  // set on YARN only
};

Result<JobCredentials> ReadJobCredentials();

}  // namespace tony::rpc
