// Where a YARN job's coordinator listens now (docs/am-restart.md §4): each AM attempt writes
// `<staging dir>/am/address`, one line `<app attempt id> <host>:<port>`, once its control plane
// listens and before it registers with the ResourceManager; an executor that lost its
// coordinator reads it to find the next attempt's. The file is written as `address.tmp` and
// renamed over `address` (WebHDFS RENAME with OVERWRITE), so a reader sees one whole line.
//
// This header holds the file's name and format, and the environment variables by which the AM
// and the executors know the staging dir on HDFS (the client sets them in the AM's launch
// context, engine/yarn_contract.h; as every TONY_ variable of the AM's environment they travel on
// to the executors). The WebHDFS reads and writes live with their callers
// (coordinator/yarn_am.cc, executor/coordinator_locator.h).
// Thread-safety: plain functions.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace tony::rpc {

// The job's HDFS staging dir, and the NameNode HTTP address(es) and user to reach it with
// (WebHDFS); "true" when WebHDFS is https (dfs.http.policy=HTTPS_ONLY); the DataNode hosts it may
// be redirected to (comma-separated; unset: any).
inline constexpr char kStagingDirEnv[] = "TONY_YARN_STAGING_DIR";
inline constexpr char kStagingNameNodeEnv[] = "TONY_YARN_STAGING_NAMENODE_HTTP";
inline constexpr char kStagingUserEnv[] = "TONY_YARN_STAGING_USER";
inline constexpr char kStagingWebHdfsHttpsEnv[] = "TONY_YARN_STAGING_WEBHDFS_HTTPS";
inline constexpr char kStagingDataNodeHostsEnv[] = "TONY_YARN_STAGING_DATANODE_HOSTS";

struct AmAddress {
  std::string attempt;  // appattempt_<ts>_<app>_<attempt> (docs/hadoop-ipc.md §4.2)
  std::string address;  // host:port of the coordinator's control plane
};

// <staging dir>/am/address and the temporary file it is written as.
std::string AmAddressPath(const std::string& staging_dir);
std::string AmAddressTmpPath(const std::string& staging_dir);

// The file's one line, "<attempt> <host>:<port>\n".
std::string FormatAmAddress(const AmAddress& a);
// The file's text back; `where` (the file's path) names it in errors, which say what is wrong:
// not one line of two fields, an attempt id that does not start "appattempt_", an address that
// is not host:port (common/net.h ParseHostPort's message).
Result<AmAddress> ParseAmAddress(std::string_view text, const std::string& where);

}  // namespace tony::rpc
