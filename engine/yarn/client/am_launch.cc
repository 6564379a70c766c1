#include "engine/yarn/client/am_launch.h"

#include <cstdlib>
#include <optional>

#include "common/files.h"
#include "common/strings.h"
#include "config/key_names.h"
#include "engine/yarn/client/yarn_security.h"
#include "hadoop/hdfs/webhdfs.h"
#include "rpc/spec_file.h"

namespace tony::client {
namespace {

namespace yarn = hadoop::yarn;
namespace pb = hadoop::yarn::pb;

// The application's fields and the files the AM localizes.
yarn::Submission SubmissionOf(const AmLaunchInputs& in) {
  const JobSpec& spec = in.spec;
  yarn::Submission sub;
  sub.application_id = in.app;
  sub.name = spec.name;
  sub.queue = spec.queue;
  sub.type = spec.type.empty() ? "TONY" : spec.type;
  sub.tags = spec.tags;
  sub.node_label = in.conf.GetOr(keys::kApplicationNodeLabel, "");
  sub.view_acl = spec.view_acl;
  sub.modify_acl = spec.modify_acl;
  sub.am_resource = {spec.am_memory_mb, spec.am_vcores, spec.am_gpus};
  if (KeepsTasksAcrossAmAttempts(spec)) {
    sub.max_attempts = 1 + spec.session_retries;
    sub.keep_containers = true;
  }
  for (const auto& f : in.am_files) {
    yarn::AddLocalResource(&sub.am_container, f.name,
                           yarn::MakeLocalResource(f.file, f.archive ? pb::ARCHIVE : pb::FILE));
  }
  return sub;
}

// Where the AM finds the ResourceManager's scheduler and the web proxy, and who it is.
void AddSchedulerEnvironment(const AmLaunchInputs& in, pb::ContainerLaunchContextProto* am) {
  const hadoop::ClusterConf& conf = in.cluster.conf;
  // Every scheduler of an HA pair, in rm-ids order, and the failover policy
  // (engine/yarn_contract.h).
  yarn::AddEnvironment(am, engine::kSchedulerAddressEnv, Join(conf.SchedulerAddresses(), ","));
  yarn::AddEnvironment(am, engine::kRmFailoverEnv, hadoop::FormatFailoverPolicy(conf.rm_failover));
  yarn::AddEnvironment(am, "TONY_JOB_ID", yarn::ApplicationIdString(in.app));
  // The submitter's log level goes to the AM, and from it to every executor (README "Logs").
  if (const char* level = std::getenv("TONY_LOG_LEVEL");
      level != nullptr && yarn::IsSafeEnvironmentValue(level)) {
    yarn::AddEnvironment(am, "TONY_LOG_LEVEL", level);
  }
  yarn::AddEnvironment(am, engine::kWebProxyEnv, Join(conf.WebProxyAddresses(), ","));
}

// The job secret as a secret key of the AM's credentials, never in a file, the environment or
// the command line (engine/yarn/yarn_engine.cc does the same for every executor).
// On a Kerberized cluster the delegation tokens go with it (engine/yarn/client/yarn_security.h).
Status SetCredentials(const AmLaunchInputs& in, yarn::Submission* sub) {
  const Cluster& cluster = in.cluster;
  hadoop::security::Credentials am_credentials = in.tokens;
  // Tokens from a token file are the scheduler's, shared with its other jobs: the RM must not
  // cancel them when this application ends.
  sub->cancel_tokens_when_complete = cluster.security.file_tokens.tokens().empty();
  am_credentials.AddSecret(rpc::kJobSecretAlias, in.secret);
  am_credentials.AddSecret(rpc::kJobTlsKeyAlias, in.tls.key_pem);
  am_credentials.AddSecret(rpc::kJobTlsCertAlias, in.tls.cert_pem);
  if (!cluster.webhdfs.trust.ca_pem.empty()) {
    am_credentials.AddSecret(hadoop::hdfs::kTrustAlias, cluster.webhdfs.trust.ca_pem);
  }
  const std::string keytab = in.conf.GetOr(keys::kKerberosKeytab, "");
  if (!keytab.empty() && cluster.security.kerberos && cluster.security.proxy_user.empty()) {
    auto bytes = ReadFile(keytab);
    if (!bytes.ok()) return bytes.status().WithContext(keys::kKerberosKeytab);
    am_credentials.AddSecret(engine::kKeytabAlias, *bytes);
    am_credentials.AddSecret(engine::kPrincipalAlias, cluster.security.kerberos->principal());
  }
  yarn::SetTokens(&sub->am_container, am_credentials);
  return Status::Ok();
}

// What the AM needs of HDFS and the NodeManagers' web servers: the staging dir it removes, the
// NameNodes, https and the token service.
void AddStagingEnvironment(const AmLaunchInputs& in, pb::ContainerLaunchContextProto* am) {
  const Cluster& cluster = in.cluster;
  // The AM removes the staging dir once it has unregistered, should this client be gone by then
  // (not a --debug job's).
  if (!in.options.debug) yarn::AddEnvironment(am, engine::kStagingDirEnv, in.staging_dir);
  yarn::AddEnvironment(am, engine::kStagingNameNodeEnv, cluster.NameNodes());
  yarn::AddEnvironment(am, engine::kStagingUserEnv, cluster.user);
  yarn::AddEnvironment(am, engine::kDefaultFsEnv, cluster.conf.default_fs);
  if (cluster.webhdfs.https) yarn::AddEnvironment(am, engine::kStagingWebHdfsHttpsEnv, "true");
  if (!cluster.webhdfs.datanode_hosts.empty()) {
    yarn::AddEnvironment(am, engine::kStagingDataNodeHostsEnv,
                         Join(cluster.webhdfs.datanode_hosts, ","));
  }
  if (cluster.conf.yarn_https) yarn::AddEnvironment(am, engine::kNodeWebSchemeEnv, "https");
  std::vector<std::string> namenodes = cluster.conf.NameNodeWebAddresses();
  yarn::AddEnvironment(am, engine::kNameNodeHttpEnv, Join(namenodes, ","));
  if (!namenodes.empty()) {
    yarn::AddEnvironment(am, engine::kWebHdfsUrlEnv,
                         cluster.conf.WebHdfsScheme() + "://" + namenodes.front() + "/webhdfs/v1");
  }
  if (cluster.security.secure()) {
    yarn::AddEnvironment(am, engine::kHdfsTokenServiceEnv, DefaultFsTokenService(cluster.conf));
  }
}

}  // namespace

bool KeepsTasksAcrossAmAttempts(const JobSpec& spec) {
  return spec.session_retries > 0 && !spec.SingleNode();
}

JobSpec WithAmReconnectWindow(JobSpec spec) {
  spec.am_reconnect_window_ms = KeepsTasksAcrossAmAttempts(spec) ? engine::kAmReconnectWindowMs : 0;
  return spec;
}

std::string AmAttemptsCapNote(const JobSpec& spec, const hadoop::ClusterConf& cluster) {
  if (!KeepsTasksAcrossAmAttempts(spec)) return "";
  constexpr char kKey[] = "yarn.resourcemanager.am.max-attempts";
  int64_t rm_max = 2;  // yarn-default.xml
  // Where the value came from: a site file's <source> may say only "programmatically".
  std::string where = "Hadoop's default: this client's Hadoop configuration in " +
                      cluster.conf_dir + " does not set it";
  if (const ConfigValue* v = cluster.raw.Find(kKey); v != nullptr) {
    std::optional<int64_t> parsed = ParseInt64(Trim(v->value));
    if (!parsed || *parsed < 1) return "";  // the RM's to judge; nothing to say of it here
    rm_max = *parsed;
    where = "in this client's Hadoop configuration in " + cluster.conf_dir;
  }
  const int64_t asked = 1 + static_cast<int64_t>(spec.session_retries);
  if (asked <= rm_max) return "";
  return "tony: note: retry count " + std::to_string(spec.session_retries) + " (" +
         spec.KeyAndSource(keys::kAmRetryCount) + ") asks YARN for " + std::to_string(asked) +
         " AM attempts, but " + kKey + " is " + std::to_string(rm_max) + " (" + where +
         "), and the ResourceManager gives no application more: " +
         (rm_max > 1 ? "a dead AM is replaced at most " + std::to_string(rm_max - 1) + " time(s)"
                     : "a dead AM ends the job") +
         " (session retries of a failed job are not capped)";
}

Result<yarn::Submission> BuildAmSubmission(const AmLaunchInputs& in) {
  yarn::Submission sub = SubmissionOf(in);
  AddSchedulerEnvironment(in, &sub.am_container);
  TONY_RETURN_IF_ERROR(SetCredentials(in, &sub));
  if (in.spec.docker_enabled) {
    yarn::AddDockerRuntime(&sub.am_container, in.spec.am_docker_image, in.spec.docker_mounts);
  }
  AddStagingEnvironment(in, &sub.am_container);
  sub.am_container.add_command(std::string("exec ") + engine::kBundleBinary +
                               " am --job-dir . --engine yarn 1><LOG_DIR>/am.log 2>&1");
  return sub;
}

}  // namespace tony::client
