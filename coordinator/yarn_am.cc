// The YARN engine's half of `tony am --engine yarn` (am_main.h): the coordinator inside the
// ApplicationMaster container, set up from what the client put into the AM's launch context
// (engine/yarn_contract.h) and the credentials file the NodeManager wrote for it.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "common/files.h"
#include "common/log.h"
#include "common/strings.h"
#include "config/key_names.h"
#include "coordinator/am_journal.h"
#include "coordinator/am_main.h"
#include "engine/yarn/yarn_engine.h"
#include "hadoop/hdfs/webhdfs.h"
#include "hadoop/security/credentials.h"
#include "hadoop/security/kerberos.h"
#include "hadoop/yarn/cluster_conf.h"
#include "hadoop/yarn/records.h"
#include "rpc/am_address.h"

namespace tony {
namespace {

std::string Env(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

// The application is over (the AM unregistered, no attempt follows): its staging dir goes now,
// whether or not the client that staged it is still following. The client removes it too.
// On a Kerberized cluster the AM has no ticket: it deletes with the job's HDFS delegation token.
void RemoveStagingAfterUnregister(const std::string& dir, const std::string& namenode_http,
                                  const std::string& user, const hadoop::security::Token* hdfs,
                                  const hadoop::hdfs::WebHdfsOptions& web) {
  if (dir.empty() || namenode_http.empty()) return;  // submitted by a client that did not say
  hadoop::hdfs::WebHdfs fs(namenode_http, user, web);
  if (hdfs != nullptr) fs.UseDelegationToken(hadoop::security::EncodeTokenUrlString(*hdfs));
  auto deleted = fs.Delete(dir);
  if (!deleted.ok()) {
    TONY_LOG(kWarning) << "removing the staging dir " << dir << ": " << deleted.status().ToString();
  } else {
    TONY_LOG(kInfo) << "removed the staging dir " << dir;
  }
}

// docs/am-restart.md §4: this attempt's address in <staging>/am/address, written whole and
// renamed over the previous attempt's. The attempt id is that of this AM's container
// ($CONTAINER_ID, which the NodeManager sets).
Status WriteAmAddress(const std::string& dir, const std::string& namenode_http,
                      const std::string& user, const hadoop::security::Token* hdfs,
                      const hadoop::hdfs::WebHdfsOptions& web,
                      const engine::CoordinatorAddress& coordinator) {
  if (dir.empty() || namenode_http.empty()) {
    return FailedPrecondition(std::string(rpc::kStagingDirEnv) + " or " + rpc::kStagingNameNodeEnv +
                              " is not set (a --debug job keeps its staging dir to itself)");
  }
  auto container = hadoop::yarn::ParseContainerId(Env("CONTAINER_ID"));
  if (!container.ok()) return container.status().WithContext("$CONTAINER_ID of the AM");
  rpc::AmAddress address{hadoop::yarn::AttemptIdString(container->app_attempt_id()),
                         coordinator.host + ":" + std::to_string(coordinator.port)};
  hadoop::hdfs::WebHdfs fs(namenode_http, user, web);
  if (hdfs != nullptr) fs.UseDelegationToken(hadoop::security::EncodeTokenUrlString(*hdfs));
  TONY_RETURN_IF_ERROR(fs.Mkdirs(dir + "/am", "700"));
  TONY_RETURN_IF_ERROR(fs.Create(rpc::AmAddressTmpPath(dir), rpc::FormatAmAddress(address)));
  TONY_RETURN_IF_ERROR(fs.RenameOver(rpc::AmAddressTmpPath(dir), rpc::AmAddressPath(dir)));
  TONY_LOG(kInfo) << "wrote " << rpc::AmAddressPath(dir) << ": " << address.attempt << " "
                  << address.address;
  return Status::Ok();
}

// docs/hadoop-ipc.md §2.1/§3: the AMRMToken is in the credentials file the NM wrote for this
// container, with the job's HDFS delegation tokens on a Kerberized cluster.
Result<hadoop::security::Credentials> AmCredentials() {
  auto credentials = hadoop::security::Credentials::FromEnvironment();
  if (!credentials.ok()) return credentials.status().WithContext("reading the AMRMToken");
  if (credentials->FindToken(hadoop::security::kAmRmTokenKind) == nullptr) {
    return NotFound("no YARN_AM_RM_TOKEN in $HADOOP_TOKEN_FILE_LOCATION");
  }
  return credentials;
}

// A keytab submit's keytab and principal (engine/yarn_contract.h kKeytabAlias), taken out of the
// credentials file; the keytab is kept in memory only.
Result<engine::TokenRenewalOptions> TokenRenewalFromKeytab(
    const std::string& alias, const hadoop::security::Token& staging,
    const hadoop::hdfs::WebHdfsOptions& web) {
  TONY_ASSIGN_OR_RETURN(auto secrets, hadoop::security::TakeSecretsFromTokenFile(
                                          {engine::kKeytabAlias, engine::kPrincipalAlias}));
  engine::TokenRenewalOptions renewal;
  TONY_ASSIGN_OR_RETURN(renewal.keytab, hadoop::security::KeytabInMemory(secrets[0]));
  renewal.principal = secrets[1];
  renewal.namenode_http = Env(engine::kStagingNameNodeEnv);
  renewal.web = web;
  renewal.alias = alias;
  renewal.token = staging;
  if (renewal.namenode_http.empty()) {
    return FailedPrecondition(std::string(engine::kStagingNameNodeEnv) +
                              " is not set: no NameNode to renew the HDFS delegation token with");
  }
  return renewal;
}

// How the AM reaches the staging HDFS: its NameNodes, user, token and WebHDFS settings.
struct StagingHdfs {
  std::string namenode_http;
  std::string user;
  std::optional<hadoop::security::Token> token;
  hadoop::hdfs::WebHdfsOptions web;

  std::unique_ptr<hadoop::hdfs::WebHdfs> Connect() const {
    auto fs = std::make_unique<hadoop::hdfs::WebHdfs>(namenode_http, user, web);
    if (token) fs->UseDelegationToken(hadoop::security::EncodeTokenUrlString(*token));
    return fs;
  }
};

// docs/am-restart.md §3: the journal in <staging>/am/journal.pb, written whole and renamed over
// the previous one (the am/ dir is WriteAmAddress's, made before the AM registers).
Status WriteAmJournal(const std::string& dir, const StagingHdfs& staging,
                      const std::string& bytes) {
  auto fs = staging.Connect();
  TONY_RETURN_IF_ERROR(fs->Create(AmJournalTmpPath(dir), bytes, "600"));
  return fs->RenameOver(AmJournalTmpPath(dir), AmJournalPath(dir));
}

// docs/am-restart.md §5: a later AM attempt recovers the job from the journal the attempt before
// wrote. nullopt for the first attempt, and when there is no journal to recover from (a warning
// says why): the job then starts afresh, as TonY's second attempt does.
std::optional<core::JobJournal> ReadAmJournal(const std::string& dir, const StagingHdfs& staging) {
  auto container = hadoop::yarn::ParseContainerId(Env("CONTAINER_ID"));
  if (!container.ok() || container->app_attempt_id().attemptid() <= 1) return std::nullopt;
  const std::string path = AmJournalPath(dir);
  auto bytes = staging.Connect()->Open(path);
  auto journal =
      bytes.ok() ? ParseAmJournal(*bytes, path) : Result<core::JobJournal>(bytes.status());
  if (!journal.ok()) {
    TONY_LOG(kWarning) << "AM attempt " << container->app_attempt_id().attemptid()
                       << " cannot recover the job from the journal ("
                       << journal.status().ToString() << "): the job starts afresh";
    return std::nullopt;
  }
  return std::move(*journal);
}

// The job's TonY history on the cluster's HDFS, through WebHDFS with the staging token.
class WebHdfsHistoryFs final : public history::HistoryFs {
 public:
  WebHdfsHistoryFs(std::string default_fs, const StagingHdfs& staging)
      : default_fs_(std::move(default_fs)), fs_(staging.Connect()) {}
  std::string Describe() const override { return default_fs_; }
  Status MakeDirs(const std::string& path) override { return fs_->Mkdirs(path, "770"); }
  Status Create(const std::string& path, const std::string& data) override {
    return fs_->Create(path, data, "640");
  }
  Status Append(const std::string& path, const std::string& data) override {
    return fs_->Append(path, data);
  }
  Status Rename(const std::string& from, const std::string& to) override {
    return fs_->Rename(from, to);
  }

 private:
  std::string default_fs_;
  std::unique_ptr<hadoop::hdfs::WebHdfs> fs_;
};

// A tony.history.* value's path on the cluster's HDFS, as TonY resolves it against fs.defaultFS:
// a plain path, hdfs:///path and hdfs://<fs.defaultFS's authority>/path. nullopt for file://
// (the AM's own machine, written as on the local engine); an error naming the key for another
// file system.
Result<std::optional<std::string>> HdfsHistoryPath(const std::string& value, const char* key,
                                                   const std::string& default_fs) {
  if (StartsWith(value, "file://")) return std::optional<std::string>();
  std::string path = value;
  if (StartsWith(value, "hdfs://")) {
    std::string rest = value.substr(std::strlen("hdfs://"));
    size_t slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    path = slash == std::string::npos ? "/" : rest.substr(slash);
    if (!authority.empty() && "hdfs://" + authority != default_fs) {
      return InvalidArgument(std::string(key) + "=" + value +
                             ": tony writes the history on the cluster's default file system "
                             "only (fs.defaultFS = " +
                             (default_fs.empty() ? std::string("unset") : default_fs) +
                             "), or on the AM's machine with file://");
    }
  } else if (value.find("://") != std::string::npos) {
    return InvalidArgument(std::string(key) + "=" + value +
                           ": tony writes the history on HDFS (hdfs://) or with file:// only");
  }
  if (path.empty() || path[0] != '/') {
    return InvalidArgument(std::string(key) + "=" + value + ": not an absolute path");
  }
  if (default_fs.empty() || !StartsWith(default_fs, "hdfs://")) {
    return FailedPrecondition(std::string(key) + "=" + value +
                              ": the client sent no hdfs:// fs.defaultFS to write it on");
  }
  return std::optional<std::string>(path);
}

// Points the history at HDFS when tony.history.* say so. An error leaves the options as they were
// with `error` set: the coordinator reports it as the history's and the job runs on without it.
void PlaceHistory(const StagingHdfs& staging, const std::string& job_dir,
                  history::TonyHistoryOptions* o) {
  const std::string default_fs = Env(engine::kDefaultFsEnv);
  auto intermediate = HdfsHistoryPath(o->intermediate, keys::kHistoryIntermediate, default_fs);
  auto finished = HdfsHistoryPath(o->finished, keys::kHistoryFinished, default_fs);
  if (!intermediate.ok() || !finished.ok()) {
    o->error = (!intermediate.ok() ? intermediate.status() : finished.status()).message();
    return;
  }
  if (intermediate->has_value() != finished->has_value()) {
    o->error = std::string(keys::kHistoryIntermediate) + "=" + o->intermediate + " and " +
               keys::kHistoryFinished + "=" + o->finished +
               ": both on HDFS or both file://, as the job's directory moves from one to the other";
    return;
  }
  if (!intermediate->has_value()) return;  // file://: on this machine
  o->intermediate = **intermediate;
  o->finished = **finished;
  o->fs = std::make_shared<WebHdfsHistoryFs>(default_fs, staging);
  o->scratch = JoinPath(job_dir, "tony-history");
}

// How the client set up the staging HDFS for the AM: its NameNodes and user, the staging file
// system's token (by its service: a token file's tokens for other NameNodes may come first,
// engine/yarn/client/token_file.h) and the client's WebHDFS settings (engine/yarn_contract.h:
// https, its CAs, the DataNode hosts). The CAs go on to the tasks too.
StagingHdfs StagingFrom(const hadoop::security::Credentials& credentials,
                        engine::YarnEngineOptions* yarn) {
  StagingHdfs staging;
  staging.namenode_http = Env(engine::kStagingNameNodeEnv);
  staging.user = Env(engine::kStagingUserEnv);
  const auto* token = credentials.FindToken(hadoop::security::kHdfsDelegationTokenKind,
                                            Env(engine::kHdfsTokenServiceEnv));
  if (token == nullptr) token = credentials.FindToken(hadoop::security::kHdfsDelegationTokenKind);
  if (token != nullptr) staging.token = *token;
  staging.web.https = Env(engine::kStagingWebHdfsHttpsEnv) == "true";
  staging.web.datanode_hosts = SplitTrimmed(Env(engine::kStagingDataNodeHostsEnv), ',');
  if (const std::string* ca = credentials.FindSecret(hadoop::hdfs::kTrustAlias); ca != nullptr) {
    staging.web.trust = {*ca, "the CA certificates the client sent (" +
                                  std::string(hadoop::hdfs::kTrustAlias) + ")"};
    // The tasks' own WebHDFS clients trust the same CAs (executor/hadoop_env.h).
    yarn->task_tokens.AddSecret(hadoop::hdfs::kTrustAlias, *ca);
  }
  return staging;
}

Result<engine::YarnEngineOptions> YarnOptions(const std::string& job_dir, StagingHdfs* staging) {
  engine::YarnEngineOptions yarn;
  yarn.scheduler_address = Env(engine::kSchedulerAddressEnv);
  yarn.rm_failover = hadoop::ParseFailoverPolicy(Env(engine::kRmFailoverEnv));
  TONY_ASSIGN_OR_RETURN(hadoop::security::Credentials credentials, AmCredentials());
  yarn.am_rm_token = *credentials.FindToken(hadoop::security::kAmRmTokenKind);
  // Only the HDFS tokens travel on to the tasks (engine/yarn/client/yarn_security.h), those of
  // WebHDFS URIs of tony.other.namenodes too (engine/yarn/client/namenode_tokens.h).
  for (const auto& [alias, t] : credentials.tokens()) {
    if (t.kind == hadoop::security::kHdfsDelegationTokenKind ||
        t.kind == hadoop::security::kWebHdfsDelegationTokenKind ||
        t.kind == hadoop::security::kSWebHdfsDelegationTokenKind) {
      yarn.task_tokens.AddToken(alias, t);
    }
  }
  *staging = StagingFrom(credentials, &yarn);
  yarn.node_web_scheme = Env(engine::kNodeWebSchemeEnv, "http");
  if (credentials.FindSecret(engine::kKeytabAlias) != nullptr && staging->token) {
    std::string alias;
    for (const auto& [a, t] : credentials.tokens()) {
      if (t == *staging->token) alias = a;
    }
    TONY_ASSIGN_OR_RETURN(yarn.token_renewal,
                          TokenRenewalFromKeytab(alias, *staging->token, staging->web));
  }
  TONY_ASSIGN_OR_RETURN(std::string listing, ReadFile(JoinPath(job_dir, engine::kResourcesFile)));
  TONY_ASSIGN_OR_RETURN(yarn.resources, engine::ParseYarnResources(listing));
  if (yarn.scheduler_address.empty()) {
    return FailedPrecondition(std::string(engine::kSchedulerAddressEnv) + " is not set");
  }
  yarn.after_unregister = [dir = Env(engine::kStagingDirEnv), s = *staging] {
    RemoveStagingAfterUnregister(dir, s.namenode_http, s.user, s.token ? &*s.token : nullptr,
                                 s.web);
  };
  yarn.before_register = [dir = Env(engine::kStagingDirEnv),
                          s = *staging](const engine::CoordinatorAddress& coordinator) {
    return WriteAmAddress(dir, s.namenode_http, s.user, s.token ? &*s.token : nullptr, s.web,
                          coordinator);
  };
  return yarn;
}

}  // namespace

Result<EngineSetup> SetUpYarnEngine(const AmInputs& inputs, CoordinatorOptions defaults) {
  StagingHdfs staging;
  TONY_ASSIGN_OR_RETURN(engine::YarnEngineOptions yarn, YarnOptions(inputs.job_dir, &staging));
  EngineSetup setup;
  setup.options = std::move(defaults);
  if (setup.options.tony_history)
    PlaceHistory(staging, inputs.job_dir, &*setup.options.tony_history);
  setup.options.job_id = Env("TONY_JOB_ID", "tony-yarn-job");
  setup.options.bind_host = "0.0.0.0";   // executors and the client reach it across the cluster
  setup.options.status_endpoint = true;  // the tracking URL: `tony status` from anywhere
  // Answering the RM's web proxy only, which authenticates users and checks the view ACL.
  setup.options.status_proxies = SplitTrimmed(Env(engine::kWebProxyEnv), ',');
  setup.options.advertised_host = Env("NM_HOST", "localhost");  // registered as the AM's host
  setup.options.tony_binary = engine::kBundleBinary;  // unpacked into every container by its NM
  // Only a job whose tasks ride out a dead AM has a later attempt to recover it (§8, 1).
  const std::string staging_dir = Env(engine::kStagingDirEnv);
  if (inputs.spec.am_reconnect_window_ms > 0 && !staging_dir.empty() &&
      !staging.namenode_http.empty()) {
    setup.options.write_journal = [staging_dir, staging](const std::string& bytes) {
      return WriteAmJournal(staging_dir, staging, bytes);
    };
    setup.options.journal = ReadAmJournal(staging_dir, staging);
  }
  setup.make_engine = [spec = inputs.spec, yarn = std::move(yarn)](asio::io_context& io) {
    return std::make_unique<engine::YarnEngine>(io, spec, yarn);
  };
  return setup;
}

}  // namespace tony
