// `tony submit` with the delegation tokens a workflow scheduler (Oozie, Azkaban, a launcher)
// hands its jobs in $HADOOP_TOKEN_FILE_LOCATION, with or without a Kerberos ticket (issue 9).
//
// Reading the file, picking the RM and HDFS delegation tokens a submission without a Kerberos
// login authenticates with, and the file's tokens that go on to the job. Everything here is a
// pure function of the file's bytes, the cluster's token services and the time, so that the
// choice is unit-tested (tests/unit/token_file_test.cc); engine/yarn/client/yarn_security.cc
// decides when it applies. Thread-safety: plain values and functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "hadoop/security/credentials.h"

namespace tony::client {

inline constexpr char kTokenFileEnv[] = "HADOOP_TOKEN_FILE_LOCATION";

struct TokenFile {
  std::string path;
  hadoop::security::Credentials credentials;
  // "$HADOOP_TOKEN_FILE_LOCATION (/path)", for messages.
  std::string Describe() const;
};

// The file `location` (the variable's value) names; nullopt when it is unset (null) or empty.
// kInvalidArgument naming the variable and the path when the file is missing, not a file,
// unreadable or not a Hadoop token storage file.
Result<std::optional<TokenFile>> ReadTokenFile(const char* location);

// The tokens a submission without a Kerberos login authenticates with.
struct TokenLogin {
  hadoop::security::Token rm;    // RM_DELEGATION_TOKEN: the RM connection (TOKEN, DIGEST-MD5)
  hadoop::security::Token hdfs;  // HDFS_DELEGATION_TOKEN of the default file system: WebHDFS
  std::string owner;             // the RM token's owner: whom the job runs as
};

// From `file`: the RM delegation token whose service (with RM HA a comma-separated list) names
// one of `rm_services` ("ip:port" of each ResourceManager), and the HDFS delegation token of
// `hdfs_service`. kUnauthenticated naming the kind and service of a token that is missing, or
// the token past its maximum lifetime at `now_ms`, and what to do.
Result<TokenLogin> SelectTokenLogin(const TokenFile& file,
                                    const std::vector<std::string>& rm_services,
                                    const std::string& hdfs_service, int64_t now_ms);

// The file's tokens that go on to the job (the AM's launch context, and the HDFS ones to the
// tasks): all but YARN's per-application kinds (an AMRMToken, NMTokens, ContainerTokens: what
// the file of a YARN container holds, which belong to that container's own application).
// The file's secret keys stay with the client.
hadoop::security::Credentials ForwardedTokens(const TokenFile& file);

// kUnauthenticated naming the first delegation token of `tokens` past its maximum lifetime at
// `now_ms` (the RM refuses a submission whose tokens it cannot renew); `where` says where the
// token comes from.
Status CheckNotExpired(const hadoop::security::Credentials& tokens, const std::string& where,
                       int64_t now_ms);

}  // namespace tony::client
