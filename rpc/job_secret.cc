#include "rpc/job_secret.h"

#include <cstdlib>

#include "common/process.h"
#include "common/strings.h"
#include "hadoop/security/credentials.h"
#include "rpc/client.h"

namespace tony::rpc {

Result<std::string> ReadJobSecret() {
  const char* fd_env = std::getenv(kSecretFdEnv);
  if (fd_env != nullptr && *fd_env != '\0') {
    auto fd = ParseInt64(fd_env);
    if (!fd || *fd < 0) {
      return InvalidArgument(std::string(kSecretFdEnv) + "=" + fd_env + ": expected an fd number");
    }
    return ReadSecretFromFd(static_cast<int>(*fd));
  }
  auto secret = hadoop::security::TakeSecretFromTokenFile(kJobSecretAlias);
  if (!secret.ok()) {
    return secret.status().WithContext(std::string("reading the job secret (neither ") +
                                       kSecretFdEnv + " nor a credentials file with " +
                                       kJobSecretAlias + ")");
  }
  return secret;
}

}  // namespace tony::rpc
