// `tony am --engine yarn`: the coordinator in the ApplicationMaster container (yarn_submit.h).
#include <signal.h>

#include <cstdlib>

#include "client/bundle.h"
#include "client/yarn_submit.h"
#include "common/files.h"
#include "common/log.h"
#include "common/strings.h"
#include "coordinator/coordinator.h"
#include "engine/yarn/yarn_engine.h"
#include "hadoop/hdfs/webhdfs.h"
#include "hadoop/security/credentials.h"
#include "hadoop/yarn/cluster_conf.h"
#include "history/job_dir.h"
#include "rpc/job_secret.h"

namespace tony::client {
namespace {

std::string Env(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

// The application is over (the AM unregistered, no attempt follows): its staging dir goes now,
// whether or not the client that staged it is still following. The client removes it too.
// On a Kerberized cluster the AM has no ticket: it deletes with the job's HDFS delegation token.
void RemoveStagingAfterUnregister(const std::string& dir, const std::string& namenode_http,
                                  const std::string& user, const hadoop::security::Token* hdfs) {
  if (dir.empty() || namenode_http.empty()) return;  // submitted by a client that did not say
  hadoop::hdfs::WebHdfs fs(namenode_http, user);
  if (hdfs != nullptr) fs.UseDelegationToken(hadoop::security::EncodeTokenUrlString(*hdfs));
  auto deleted = fs.Delete(dir);
  if (!deleted.ok()) {
    TONY_LOG(kWarning) << "removing the staging dir " << dir << ": " << deleted.status().ToString();
  } else {
    TONY_LOG(kInfo) << "removed the staging dir " << dir;
  }
}

}  // namespace

int RunYarnCoordinator(const std::string& job_dir) {
  SetLogComponent("am");
  history::JobPaths paths(job_dir);
  auto fail = [](const Status& s) {
    TONY_LOG(kError) << s.ToString();
    return 1;
  };
  // Out of the credentials file the NM wrote, which keeps the AMRMToken for the read below;
  // a task on this node can no longer find the secret there.
  auto secret = rpc::ReadJobSecret();
  if (!secret.ok()) return fail(secret.status());
  Configuration conf;
  Status s = conf.AddFile(paths.FinalConf());
  if (!s.ok()) return fail(s);
  auto spec = BuildJobSpec(conf);
  if (!spec.ok()) return fail(spec.status());

  // docs/hadoop-ipc.md §2.1/§3: the AMRMToken is in the credentials file the NM wrote for this
  // container.
  auto credentials = hadoop::security::Credentials::FromEnvironment();
  if (!credentials.ok()) return fail(credentials.status().WithContext("reading the AMRMToken"));
  const hadoop::security::Token* token = credentials->FindToken(hadoop::security::kAmRmTokenKind);
  if (token == nullptr) {
    return fail(NotFound("no YARN_AM_RM_TOKEN in $HADOOP_TOKEN_FILE_LOCATION"));
  }
  engine::YarnEngineOptions yarn;
  yarn.job_dir = job_dir;
  yarn.scheduler_address = Env(engine::kSchedulerAddressEnv);
  yarn.rm_failover = hadoop::ParseFailoverPolicy(Env(engine::kRmFailoverEnv));
  yarn.am_rm_token = *token;
  yarn.am_host = Env("NM_HOST", "localhost");
  auto listing = ReadFile(JoinPath(job_dir, engine::kResourcesFile));
  if (!listing.ok()) return fail(listing.status());
  auto resources = engine::ParseYarnResources(*listing);
  if (!resources.ok()) return fail(resources.status());
  yarn.resources = std::move(resources).value();
  if (yarn.scheduler_address.empty()) {
    return fail(FailedPrecondition(std::string(engine::kSchedulerAddressEnv) + " is not set"));
  }
  // Only the HDFS tokens travel on to the tasks (client/yarn_security.h).
  for (const auto& [alias, t] : credentials->tokens()) {
    if (t.kind == hadoop::security::kHdfsDelegationTokenKind) yarn.task_tokens.AddToken(alias, t);
  }
  std::optional<hadoop::security::Token> hdfs_token;
  if (const auto* t = credentials->FindToken(hadoop::security::kHdfsDelegationTokenKind)) {
    hdfs_token = *t;
  }
  yarn.after_unregister = [staging = Env(engine::kStagingDirEnv),
                           namenode = Env(engine::kStagingNameNodeEnv),
                           user = Env(engine::kStagingUserEnv), hdfs_token] {
    RemoveStagingAfterUnregister(staging, namenode, user, hdfs_token ? &*hdfs_token : nullptr);
  };

  ::signal(SIGPIPE, SIG_IGN);
  CoordinatorOptions options;
  options.job_id = Env("TONY_JOB_ID", "tony-yarn-job");
  options.job_dir = job_dir;
  options.secret = *secret;
  options.bind_host = "0.0.0.0";  // executors and the client reach it across the cluster
  options.advertised_host = yarn.am_host;
  options.tony_binary = kBundleBinary;  // unpacked into every container by its NM
  Coordinator coordinator(options, std::move(spec).value(), [&](asio::io_context& io) {
    JobSpec copy = *BuildJobSpec(conf);
    return std::make_unique<engine::YarnEngine>(io, std::move(copy), yarn);
  });
  return coordinator.Run();
}

}  // namespace tony::client
