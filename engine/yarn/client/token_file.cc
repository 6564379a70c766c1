#include "engine/yarn/client/token_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/strings.h"
#include "common/utc_time.h"

namespace tony::client {
namespace {

namespace security = hadoop::security;

// "HDFS_DELEGATION_TOKEN for 127.0.0.1:9000, ...": what the file holds, for messages.
std::string Inventory(const security::Credentials& creds) {
  std::vector<std::string> items;
  for (const auto& [alias, token] : creds.tokens()) {
    items.push_back(token.kind + (token.service.empty() ? "" : " for " + token.service));
  }
  return items.empty() ? "no tokens" : Join(items, ", ");
}

bool ServiceNames(const std::string& service, const std::vector<std::string>& wanted) {
  for (const std::string& one : SplitTrimmed(service, ',')) {
    for (const std::string& w : wanted) {
      if (one == w) return true;
    }
  }
  return false;
}

// kUnauthenticated when `token` decodes and is past its maximum lifetime; a token whose
// identifier tony cannot read is left to the server.
Status CheckLifetime(const security::Token& token, const std::string& where, int64_t now_ms) {
  auto id = security::DecodeDelegationTokenIdentifier(token);
  if (!id.ok() || id->max_date_ms <= 0 || id->max_date_ms > now_ms) return Status::Ok();
  return Unauthenticated(where + ": the " + token.kind + " for " + token.service + " (owner " +
                         id->owner + ") passed its maximum lifetime at " +
                         UtcTime(id->max_date_ms) +
                         " and can no longer be used or renewed: get new tokens from the "
                         "scheduler that wrote the file, or run kinit and submit without "
                         "HADOOP_TOKEN_FILE_LOCATION");
}

}  // namespace

std::string TokenFile::Describe() const {
  return std::string("$") + kTokenFileEnv + " (" + path + ")";
}

Result<std::optional<TokenFile>> ReadTokenFile(const char* location) {
  if (location == nullptr || *location == '\0') return std::optional<TokenFile>();
  TokenFile file;
  file.path = location;
  const std::string what = file.Describe() + ", the delegation tokens to submit with: ";
  struct stat st {};
  if (::stat(location, &st) != 0) return InvalidArgument(what + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return InvalidArgument(what + "not a regular file");
  int fd = ::open(location, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return InvalidArgument(what + "cannot be read: " + std::strerror(errno));
  ::close(fd);
  auto creds = security::Credentials::ReadFile(file.path);
  if (!creds.ok()) {
    return InvalidArgument(what + "not a Hadoop credentials file (" + creds.status().message() +
                           "); unset " + kTokenFileEnv + " to submit with a Kerberos ticket");
  }
  file.credentials = std::move(creds).value();
  return std::optional<TokenFile>(std::move(file));
}

Result<TokenLogin> SelectTokenLogin(const TokenFile& file,
                                    const std::vector<std::string>& rm_services,
                                    const std::string& hdfs_service, int64_t now_ms) {
  const security::Token* rm = nullptr;
  const security::Token* hdfs = nullptr;
  for (const auto& [alias, token] : file.credentials.tokens()) {
    if (rm == nullptr && token.kind == security::kRmDelegationTokenKind &&
        ServiceNames(token.service, rm_services)) {
      rm = &token;
    }
    if (hdfs == nullptr && token.kind == security::kHdfsDelegationTokenKind &&
        token.service == hdfs_service) {
      hdfs = &token;
    }
  }
  auto missing = [&](std::string_view kind, const std::string& service, const char* whose) {
    return Unauthenticated(file.Describe() + " holds no " + std::string(kind) + " for service " +
                           service + " (" + whose + "; the file has " +
                           Inventory(file.credentials) + ")");
  };
  if (rm == nullptr) {
    return missing(security::kRmDelegationTokenKind, Join(rm_services, ","),
                   "this cluster's ResourceManager");
  }
  if (hdfs == nullptr) {
    return missing(security::kHdfsDelegationTokenKind, hdfs_service,
                   "the default file system, where tony stages the job");
  }
  TONY_RETURN_IF_ERROR(CheckLifetime(*rm, file.Describe(), now_ms));
  TONY_RETURN_IF_ERROR(CheckLifetime(*hdfs, file.Describe(), now_ms));
  auto id = security::DecodeDelegationTokenIdentifier(*rm);
  if (!id.ok()) {
    return Unauthenticated(file.Describe() + ": the " + rm->kind + " for " + rm->service +
                           " cannot be read (" + id.status().message() + ")");
  }
  return TokenLogin{*rm, *hdfs, id->owner};
}

security::Credentials ForwardedTokens(const TokenFile& file) {
  security::Credentials out;
  for (const auto& [alias, token] : file.credentials.tokens()) {
    if (token.kind == security::kAmRmTokenKind || token.kind == security::kNmTokenKind ||
        token.kind == security::kContainerTokenKind) {
      continue;
    }
    out.AddToken(alias, token);
  }
  return out;
}

Status CheckNotExpired(const security::Credentials& tokens, const std::string& where,
                       int64_t now_ms) {
  for (const auto& [alias, token] : tokens.tokens()) {
    TONY_RETURN_IF_ERROR(CheckLifetime(token, where, now_ms));
  }
  return Status::Ok();
}

}  // namespace tony::client
