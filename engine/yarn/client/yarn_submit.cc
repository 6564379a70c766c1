#include "engine/yarn/client/yarn_submit.h"

#include <chrono>
#include <iostream>
#include <optional>

#include "client/bundle.h"
#include "client/job_control.h"
#include "client/render.h"
#include "client/staging.h"
#include "client/warnings.h"
#include "common/files.h"
#include "common/log.h"
#include "common/net.h"
#include "common/strings.h"
#include "config/key_names.h"
#include "engine/fit_check.h"
#include "engine/yarn/client/am_launch.h"
#include "engine/yarn/client/hdfs_staging.h"
#include "engine/yarn/client/namenode_tokens.h"
#include "engine/yarn/client/yarn_cluster.h"
#include "engine/yarn/client/yarn_face.h"
#include "engine/yarn/client/yarn_follower.h"
#include "engine/yarn/client/yarn_security.h"
#include "engine/yarn_contract.h"
#include "hadoop/hdfs/webhdfs.h"
#include "hadoop/ipc/connection.h"
#include "hadoop/yarn/clients.h"
#include "hadoop/yarn/cluster_conf.h"
#include "history/job_dir.h"
#include "rpc/client.h"
#include "rpc/spec_file.h"

namespace tony::client {
namespace {

namespace yarn = hadoop::yarn;
namespace pb = hadoop::yarn::pb;
using namespace std::chrono_literals;

int Fail(const Status& s, int code = kExitBadInput) {
  std::cerr << "tony: error: " << s.message() << "\n";
  return code;
}

// The files every container needs, staged locally first (as on the local engine); returns the
// tony bundle (tony and its shared libraries, client/bundle.h), cached in $TONY_HOME/cache.
Result<std::string> StageLocally(const SubmitOptions& o, const history::JobPaths& paths) {
  TONY_RETURN_IF_ERROR(StageJobFiles(o, paths));
  return BuildBundle(o.tony_binary, history::TonyHome() + "/cache");
}

// One container's ask against the largest container the RM grants (GetNewApplicationResponse's
// maximumCapability, §4.3, which carries yarn.io/gpu only when the cluster declares that type).
// `role` is the role whose keys set the ask, or "am" for the coordinator's (tony.am.memory, ...:
// keys::ForRole(keys::kRoleMemory, "am") is keys::kAmMemory).
Status CheckFits(const JobSpec& spec, const std::string& role, const std::string& who,
                 const yarn::Resource& want, const yarn::Resource& max) {
  std::string key;
  if (want.memory_mb > max.memory_mb) key = keys::ForRole(keys::kRoleMemory, role);
  if (key.empty() && want.vcores > max.vcores) key = keys::ForRole(keys::kRoleVcores, role);
  const bool gpus = key.empty() && want.gpus > max.gpus;
  if (gpus) key = keys::ForRole(keys::kRoleGpus, role);
  if (key.empty()) return Status::Ok();
  std::string asks = spec.KeyAndSource(key) + ": " + who + " asks for " + yarn::ToString(want);
  if (gpus && max.gpus == 0) {
    return ResourceExhausted(asks +
                             " but this cluster has no GPUs: the ResourceManager offers no " +
                             std::string(yarn::kGpuResource) +
                             " (it needs yarn.resource-types=yarn.io/gpu and NodeManagers with "
                             "GPUs); largest container " +
                             yarn::ToString(max));
  }
  return ResourceExhausted(asks + " but the largest container this cluster grants is " +
                           yarn::ToString(max));
}

Status CheckFits(const JobSpec& spec, const yarn::Resource& max) {
  TONY_RETURN_IF_ERROR(CheckFits(spec, "am", "the coordinator",
                                 {spec.am_memory_mb, spec.am_vcores, spec.am_gpus}, max));
  for (const auto& r : spec.roles) {
    TONY_RETURN_IF_ERROR(
        CheckFits(spec, r.name, "each " + r.name + " task", {r.memory_mb, r.vcores, r.gpus}, max));
  }
  return Status::Ok();
}

// The queue's maximum share of the cluster: CapacityScheduler's absolute maximum capacity of the
// default partition where it reports one (QueueConfigurationsProto), else maximumCapacity (which
// CapacityScheduler gives relative to the parent queue: for a queue under another than root an
// overestimate, which can only make the check refuse less; FairScheduler gives it of the cluster).
// CapacityScheduler's maximum AM share (maxAMPercentage) is not checked: it lets the first
// application of a queue start whatever that share, so it never keeps a job out for good.
std::optional<engine::FitQueue> QueueShare(const pb::QueueInfoProto& q, const std::string& name) {
  double share = q.has_maximumcapacity() ? q.maximumcapacity() : -1;
  for (const auto& entry : q.queueconfigurationsmap()) {
    if (entry.partitionname().empty() && entry.queueconfigurations().has_absolutemaxcapacity()) {
      share = entry.queueconfigurations().absolutemaxcapacity();
    }
  }
  if (share <= 0 || share >= 1) return std::nullopt;  // unknown, or the whole cluster
  return engine::FitQueue{name, share};
}

// Refuses a job that can never fit the cluster (engine/fit_check.h, the check both engines share),
// from the nodes and the queue the RM reports now. A call that fails refuses nothing: the check is
// skipped with a warning, and an RM that cannot be reached at all meets the submission's own error
// path.
Status CheckClusterFits(yarn::ApplicationClient& rm, const Cluster& c, const Configuration& conf,
                        const JobSpec& spec) {
  if (spec.skip_fit_check) return Status::Ok();
  auto reports = rm.GetClusterNodes();
  engine::FitInput in;  // the default words are a cluster's: NodeManagers, yarn.io/gpu
  if (reports.ok()) {
    for (const auto& r : *reports) {
      if (r.node_state() != pb::NS_RUNNING) continue;
      yarn::Resource cap = yarn::FromProto(r.capability());
      in.nodes.push_back({{cap.memory_mb, cap.vcores, cap.gpus},
                          {r.node_labels().begin(), r.node_labels().end()}});
    }
  }
  if (auto skipped = engine::FitCheckSkipped(reports.status(), in.nodes.size(),
                                             reports.ok() ? reports->size() : 0)) {
    std::cerr << "tony: warning: " << *skipped << "\n";
    return Status::Ok();
  }
  // Vcores never keep a job from running on a scheduler that places by memory alone.
  hadoop::SchedulerConf scheduler = hadoop::ReadSchedulerConf(c.conf);
  WarnIfFailed(scheduler.capacity_scheduler_error, "the fit check",
               "it takes the scheduler to place containers by memory alone");
  in.count_vcores = scheduler.counts_vcores;
  // The scheduler rounds every ask up to its minimum allocation; only where yarn-site says it.
  engine::GangOptions gangs;
  gangs.am_node_label = conf.GetOr(keys::kApplicationNodeLabel, "");
  gangs.min_allocation_mb = scheduler.min_allocation_mb;
  in.gangs = engine::JobGangs(spec, conf, gangs);
  if (auto queue = rm.GetQueueInfo(spec.queue); queue.ok()) {
    in.queue = QueueShare(*queue, spec.queue);
  } else {
    std::cerr << "tony: warning: " << queue.status().message() << "; the queue's capacity is not "
              << "checked\n";
  }
  return engine::CheckJobFits(in);
}

// getNewApplication failed: says why (a proxy user or a token the RM refuses, an RM that cannot be
// reached) and gives the exit code.
int FailNewApplication(const Cluster& cluster, const Status& error) {
  Status refused = ExplainProxyRefusal(cluster.security, error);
  if (refused.code() == StatusCode::kPermissionDenied) return Fail(refused);
  if (auto token = ExplainTokenRefusal(cluster.security, error)) return Fail(*token);
  Status s = error;
  if (hadoop::ipc::IsRetriableConnectError(s)) {
    s = Status(s.code(), s.message() + " (is the ResourceManager up, and is " +
                             JoinPath(cluster.conf.conf_dir, "yarn-site.xml") +
                             " this cluster's? " + keys::kApplicationNumClientRmConnectRetries +
                             " sets how often the client tries)");
  }
  return Fail(s.WithContext("asking the ResourceManager at " +
                            Join(cluster.conf.RmAddresses(), ", ") + " for an application"),
              kExitJobFailed);
}

// The local job dir, named by the application id (so status/logs/kill take the id), with the
// job's files staged in it; returns the tony bundle.
Result<std::string> MakeJobDir(const SubmitOptions& o, const Configuration& conf,
                               const JobSpec& spec, const history::JobPaths& paths) {
  TONY_RETURN_IF_ERROR(MakeNewPrivateDir(paths.root));
  TONY_RETURN_IF_ERROR(WriteFileAtomic(paths.FinalConf(), conf.ToXml()));
  TONY_RETURN_IF_ERROR(rpc::WriteJobSpecFile(paths.SpecFile(), spec));
  if (o.debug) {
    TONY_RETURN_IF_ERROR(WriteFileAtomic(JoinPath(paths.root, kKeepStagingFile),
                                         "tony submit --debug: the staged job stays\n"));
  }
  return StageLocally(o, paths);
}

// Prints what was submitted and where to find it; returns the note a --debug job repeats at the
// end.
std::string AnnounceSubmitted(yarn::ApplicationClient& rm, const Cluster& cluster,
                              const JobSpec& spec, const pb::ApplicationIdProto& app,
                              const history::JobPaths& paths, const std::string& remote,
                              bool debug) {
  const std::string app_id = yarn::ApplicationIdString(app);
  std::string tracking;
  if (auto r = rm.GetApplicationReport(app); r.ok()) tracking = r->trackingurl();
  std::cout << "tony: job " << app_id << " on the yarn engine (" << spec.framework << ", "
            << spec.TotalInstances() << " tasks)\n"
            << "tony: application " << app_id << " submitted to the ResourceManager "
            << rm.Current().ToString() << "\n"
            << "tony: tracking URL " << (tracking.empty() ? "(none yet)" : tracking) << "\n"
            << "tony: job dir " << paths.root << "\n";
  std::string fs_root = cluster.conf.default_fs;
  while (!fs_root.empty() && fs_root.back() == '/') fs_root.pop_back();
  std::string debug_note = "tony: --debug: the staged job is kept in " + paths.Staging() + " and " +
                           fs_root + remote + "\n";
  if (debug) std::cout << debug_note;
  std::cout << std::flush;
  return debug_note;
}

// Follows the submitted job to its end, makes sure the application ended too, removes the
// staging dir and prints the summary; returns the exit code.
int FollowToEnd(yarn::ApplicationClient& rm, const Cluster& cluster,
                const pb::ApplicationIdProto& app, const history::JobPaths& paths,
                const std::string& secret, const rpc::JobTls& tls, const std::string& end_note) {
  const std::string app_id = yarn::ApplicationIdString(app);
  InstallInterruptHandlers();
  rpc::JobStatus final_status = FollowApplication(rm, app, paths, secret, tls);
  std::string yarn_state = AwaitEnd(rm, app, 60s);
  if (yarn_state != "FINISHED" && yarn_state != "FAILED" && yarn_state != "KILLED") {
    WarnIfFailed(
        rm.ForceKillApplication(app, "tony submit: the job ended but the application did not"),
        "could not kill " + app_id, "it may go on running (tony kill " + app_id + ")");
    yarn_state = AwaitEnd(rm, app, 30s);
  }
  RemoveStaging(cluster, app_id);
  std::cout << "tony: application " << app_id << " " << yarn_state << "\n"
            << RenderSummary(final_status) << end_note << std::flush;
  return Succeeded(final_status) ? kExitSucceeded : kExitJobFailed;
}

// The submission once the application id is granted and the job fits: the job dir, the staging
// on HDFS (§6), the tokens, the AM's submission, then following the job. Returns the exit code.
int StageAndSubmit(yarn::ApplicationClient& rm, const Cluster& cluster, const SubmitOptions& o,
                   const Configuration& conf, const JobSpec& spec,
                   const pb::ApplicationIdProto& app) {
  const std::string app_id = yarn::ApplicationIdString(app);
  history::JobPaths paths(history::JobsRoot() + "/" + app_id);
  std::string secret = RandomHex(32);
  // The control plane's TLS identity for this job alone (rpc/tls.h): the AM serves with it, the
  // executors and this client present it and trust nothing else.
  auto tls = rpc::MakeJobTls();
  if (!tls.ok()) return Fail(tls.status());
  auto bundle = MakeJobDir(o, conf, spec, paths);
  if (!bundle.ok()) {
    WarnIfFailed(RemoveAll(paths.root), "the job dir of " + app_id + " is left");
    return Fail(bundle.status().WithContext("staging job " + app_id));
  }
  auto fs = MakeWebHdfs(cluster.conf, cluster.security, cluster.webhdfs);
  const std::string remote = StagingDir(cluster, app_id);
  auto staged = StageToHdfs(*fs, cluster, conf, spec, o, paths, *bundle, remote);
  if (!staged.ok()) {
    RemoveStaging(cluster, app_id);
    // A resource that is not there is the user's input; nothing was submitted.
    const StatusCode code = staged.status().code();
    bool bad_input = code == StatusCode::kInvalidArgument || code == StatusCode::kNotFound;
    return Fail(staged.status().WithContext("staging to HDFS " + remote),
                bad_input ? kExitBadInput : kExitJobFailed);
  }
  auto tokens = FetchDelegationTokens(cluster.conf, cluster.security, rm, *fs);
  if (!tokens.ok()) {
    RemoveStaging(cluster, app_id);
    return Fail(tokens.status().WithContext("getting delegation tokens"), kExitJobFailed);
  }
  for (const auto& warning : AddOtherNameNodeTokens(cluster.conf, cluster.security, conf,
                                                    cluster.webhdfs.trust, &*tokens)) {
    std::cerr << "tony: warning: " << warning << "\n";
  }
  auto sub =
      BuildAmSubmission({o, conf, spec, cluster, app, secret, *tls, remote, staged->am, *tokens});
  if (!sub.ok()) {
    // The keytab that goes with a keytab login cannot be read: the user's input, and nothing was
    // submitted; the staged job goes as for any other refusal.
    RemoveStaging(cluster, app_id);
    return Fail(sub.status(), kExitBadInput);
  }
  if (Status s = rm.SubmitApplication(yarn::BuildSubmissionContext(*sub)); !s.ok()) {
    RemoveStaging(cluster, app_id);
    return Fail(s, kExitJobFailed);
  }
  WarnIfFailed(RecordClusterConf(cluster, paths.root), "the job dir of " + app_id,
               "tony status, logs and kill of it need HADOOP_CONF_DIR set to this cluster's");
  // Uploaded: the local copies are no longer needed (a --debug job keeps them).
  if (!o.debug) WarnIfFailed(RemoveAll(paths.Staging()), "the job's local staging copy is left");
  const std::string debug_note = AnnounceSubmitted(rm, cluster, spec, app, paths, remote, o.debug);
  return FollowToEnd(rm, cluster, app, paths, secret, *tls, o.debug ? debug_note : "");
}

}  // namespace

int SubmitToYarn(const SubmitOptions& o, const Configuration& conf, const JobSpec& spec) {
  auto cluster = LoadCluster(hadoop::HadoopConfDir(), conf);
  if (!cluster.ok()) return Fail(cluster.status());
  auto rm_servers = RmServers(cluster->conf);
  if (!rm_servers.ok()) return Fail(rm_servers.status());
  auto rm_client = MakeRmClient(cluster->conf, cluster->security, *rm_servers);
  yarn::ApplicationClient& rm = *rm_client;
  auto new_app = rm.GetNewApplication();
  if (!new_app.ok()) return FailNewApplication(*cluster, new_app.status());
  // After getNewApplication, which leaves nothing on the cluster (it only hands out an id) and
  // reports an RM that cannot be reached with the retries the job asked for; before anything is
  // staged or submitted.
  Status s = CheckClusterFits(rm, *cluster, conf, spec);
  if (s.ok()) s = CheckFits(spec, yarn::FromProto(new_app->maximumcapability()));
  if (!s.ok()) return Fail(s);
  if (std::string note = AmAttemptsCapNote(spec, cluster->conf); !note.empty()) {
    std::cout << note << "\n";
  }
  return StageAndSubmit(rm, *cluster, o, conf, WithAmReconnectWindow(spec),
                        new_app->application_id());
}

Result<std::string> ReadJobFileFromHdfs(const std::string& uri, const Configuration& login) {
  const std::string what = "--conf_file " + uri;
  std::string rest = uri.substr(std::string_view("hdfs://").size());
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : rest.substr(slash);
  if (path.empty() || path == "/") {
    return InvalidArgument(what + ": expected hdfs:///path/to/tony.xml");
  }
  std::string conf_dir = hadoop::HadoopConfDir();
  if (conf_dir.empty()) {
    return FailedPrecondition(what +
                              ": reading a job file from HDFS needs the cluster's Hadoop "
                              "config: set HADOOP_CONF_DIR (or YARN_CONF_DIR)");
  }
  auto cluster = LoadCluster(conf_dir, login);
  if (!cluster.ok()) return cluster.status().WithContext(what);
  const std::string default_fs = cluster->conf.default_fs;  // hdfs://authority
  std::string default_authority;
  if (auto fs_uri = ParseNameNodeUri(default_fs, "fs.defaultFS");
      fs_uri.ok() && fs_uri->scheme == "hdfs") {
    default_authority =
        fs_uri->host + (fs_uri->port >= 0 ? ":" + std::to_string(fs_uri->port) : "");
  }
  if (!authority.empty() && authority != default_authority) {
    return InvalidArgument(what +
                           ": tony reads job files from the cluster's default file system "
                           "only (fs.defaultFS = " +
                           default_fs + " in " + conf_dir + "); write hdfs://" + default_authority +
                           path + " or hdfs://" + path);
  }
  auto fs = MakeWebHdfs(cluster->conf, cluster->security, cluster->webhdfs);
  auto status = fs->GetFileStatus(path);
  if (!status.ok()) return status.status().WithContext(what);
  if (status->type != "FILE") return InvalidArgument(what + ": not a file (" + status->type + ")");
  constexpr int64_t kMaxJobFileBytes = int64_t{16} * 1024 * 1024;  // as for a local job file
  if (status->length > kMaxJobFileBytes) {
    return InvalidArgument(what + ": " + std::to_string(status->length) +
                           " bytes; a job file is at most 16 MiB");
  }
  auto text = fs->Open(path);
  if (!text.ok()) return text.status().WithContext(what);
  return *text;
}

int KillYarnApplication(const std::string& application_id, const std::string& conf_dir) {
  auto app = yarn::ParseApplicationId(application_id);
  if (!app.ok()) return Fail(app.status());
  history::JobPaths paths(history::JobsRoot() + "/" + application_id);
  auto cluster = LoadCluster(conf_dir, ClusterKeysOf(application_id));
  if (!cluster.ok()) return Fail(cluster.status());
  auto rm_servers = RmServers(cluster->conf);
  if (!rm_servers.ok()) return Fail(rm_servers.status());
  auto rm_client = MakeRmClient(cluster->conf, cluster->security, *rm_servers);
  yarn::ApplicationClient& rm = *rm_client;
  Status s = rm.ForceKillApplication(*app, "killed by user (tony kill)");
  if (s.code() == StatusCode::kPermissionDenied) {
    // The RM checks the application's modify ACL (tony.application.modify-acls) when the cluster
    // has yarn.acl.enable=true.
    return Fail(PermissionDenied("tony kill " + application_id + ": permission denied: user " +
                                 cluster->user +
                                 " may not kill it (only its owner, the users and groups of its "
                                 "modify ACL " +
                                 keys::kApplicationModifyAcls +
                                 ", and the cluster's and queue's admins may); the "
                                 "ResourceManager says: " +
                                 s.message()),
                kExitJobFailed);
  }
  if (!s.ok()) return Fail(s, kExitJobFailed);
  std::string state = AwaitEnd(rm, *app, 60s);
  RemoveStaging(*cluster, application_id);
  // A local record that does not show the end takes the RM's (its unended tasks ended with it).
  if (auto written = history::ReadJobStatus(paths); written.ok() && !IsFinished(*written)) {
    auto updated = CurrentClusterStatus(*MakeYarnClientFace(), paths);
    WarnIfFailed(updated.status(), "the local record of " + application_id + " is not updated");
  }
  std::cout << "job " << application_id << " " << state << "\n";
  return state == "KILLED" || state == "FINISHED" || state == "FAILED" ? 0 : 1;
}

}  // namespace tony::client
