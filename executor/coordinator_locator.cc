#include "executor/coordinator_locator.h"

#include <cstdlib>
#include <memory>
#include <utility>

#include "common/strings.h"
#include "hadoop/hdfs/tls.h"
#include "hadoop/security/credentials.h"
#include "rpc/am_address.h"

namespace tony {
namespace {

std::string EnvOrEmpty(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

}  // namespace

Result<AmAddressSource> AmAddressSourceFromEnvironment() {
  AmAddressSource s;
  s.staging_dir = EnvOrEmpty(rpc::kStagingDirEnv);
  s.namenode_http = EnvOrEmpty(rpc::kStagingNameNodeEnv);
  for (const char* name : {rpc::kStagingDirEnv, rpc::kStagingNameNodeEnv}) {
    if (EnvOrEmpty(name).empty()) {
      return NotFound(std::string(name) + " is not set: no AM address file to look up");
    }
  }
  s.user = EnvOrEmpty(rpc::kStagingUserEnv);
  s.web.https = EnvOrEmpty(rpc::kStagingWebHdfsHttpsEnv) == "true";
  s.web.datanode_hosts = SplitTrimmed(EnvOrEmpty(rpc::kStagingDataNodeHostsEnv), ',');
  s.token_file = EnvOrEmpty("HADOOP_TOKEN_FILE_LOCATION");
  s.token_service = EnvOrEmpty("TONY_HDFS_TOKEN_SERVICE");
  return s;
}

Result<std::string> ReadCoordinatorAddress(const AmAddressSource& source) {
  namespace security = hadoop::security;
  hadoop::hdfs::WebHdfsOptions web = source.web;
  std::string delegation;
  if (!source.token_file.empty()) {
    auto creds = security::Credentials::ReadFile(source.token_file);
    if (!creds.ok()) return creds.status().WithContext("the container's token file");
    // The CAs the client trusted (engine/yarn_contract.h), as the AM reads its staging dir.
    if (const std::string* ca = creds->FindSecret(hadoop::hdfs::kTrustAlias); ca != nullptr) {
      web.trust = {*ca, "the CA certificates of the container's credentials (" +
                            std::string(hadoop::hdfs::kTrustAlias) + ")"};
    }
    const security::Token* token =
        creds->FindToken(security::kHdfsDelegationTokenKind, source.token_service);
    if (token == nullptr) token = creds->FindToken(security::kHdfsDelegationTokenKind);
    if (token != nullptr) delegation = security::EncodeTokenUrlString(*token);
  }
  hadoop::hdfs::WebHdfs fs(source.namenode_http, source.user, web);
  if (!delegation.empty()) fs.UseDelegationToken(delegation);
  const std::string path = rpc::AmAddressPath(source.staging_dir);
  TONY_ASSIGN_OR_RETURN(std::string text, fs.Open(path));
  TONY_ASSIGN_OR_RETURN(rpc::AmAddress address, rpc::ParseAmAddress(text, path));
  return address.address;
}

WebHdfsCoordinatorLocator::WebHdfsCoordinatorLocator(ExecutorLoop& loop,
                                                     std::function<Result<std::string>()> look_up)
    : loop_(loop), look_up_(std::move(look_up)) {}

WebHdfsCoordinatorLocator::~WebHdfsCoordinatorLocator() {
  if (lookup_.joinable()) lookup_.join();
}

void WebHdfsCoordinatorLocator::Locate(std::function<void(Result<std::string>)> done) {
  if (in_flight_) {
    loop_.Post([done = std::move(done)] {
      done(Result<std::string>(Unavailable("a lookup of the coordinator is in flight")));
    });
    return;
  }
  in_flight_ = true;
  if (lookup_.joinable()) lookup_.join();  // the previous lookup, already answered
  // The answer is posted; it reaches `done` only while this locator lives (the loop may run the
  // closure after the locator is gone, e.g. at the executor's end).
  lookup_ =
      std::thread([this, alive = std::weak_ptr<int>(alive_), done = std::move(done)]() mutable {
        Result<std::string> address = look_up_();
        loop_.Post([this, alive, done = std::move(done), address = std::move(address)]() mutable {
          if (alive.expired()) return;
          in_flight_ = false;
          done(std::move(address));
        });
      });
}

}  // namespace tony
