#include "rpc/job_secret.h"

#include <cstdlib>

#include "common/process.h"
#include "common/strings.h"
#include "hadoop/security/credentials.h"
#include "rpc/client.h"

namespace tony::rpc {

Result<JobCredentials> ReadJobCredentials() {
  const char* fd_env = std::getenv(kSecretFdEnv);
  if (fd_env != nullptr && *fd_env != '\0') {
    auto fd = ParseInt64(fd_env);
    if (!fd || *fd < 0) {
      return InvalidArgument(std::string(kSecretFdEnv) + "=" + fd_env + ": expected an fd number");
    }
    TONY_ASSIGN_OR_RETURN(std::string secret, ReadSecretFromFd(static_cast<int>(*fd)));
    return JobCredentials{std::move(secret), std::nullopt};
  }
  auto secrets = hadoop::security::TakeSecretsFromTokenFile(
      {kJobSecretAlias, kJobTlsKeyAlias, kJobTlsCertAlias});
  if (!secrets.ok()) {
    return secrets.status().WithContext(std::string("reading the job's credentials (neither ") +
                                        kSecretFdEnv + " nor a credentials file with " +
                                        kJobSecretAlias + ", " + kJobTlsKeyAlias + " and " +
                                        kJobTlsCertAlias + ")");
  }
  auto& s = *secrets;
  return JobCredentials{std::move(s[0]), JobTls{std::move(s[1]), std::move(s[2])}};
}

}  // namespace tony::rpc
