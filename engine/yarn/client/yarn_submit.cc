#include "engine/yarn/client/yarn_submit.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>
#include <thread>

#include "client/bundle.h"
#include "client/follow.h"
#include "client/job_control.h"
#include "client/job_record.h"
#include "client/render.h"
#include "client/resources.h"
#include "client/staging.h"
#include "client/warnings.h"
#include "common/clock.h"
#include "common/files.h"
#include "common/log.h"
#include "common/net.h"
#include "common/process.h"
#include "common/strings.h"
#include "config/key_names.h"
#include "engine/yarn/client/fit_check.h"
#include "engine/yarn/client/namenode_tokens.h"
#include "engine/yarn/client/yarn_cluster.h"
#include "engine/yarn/client/yarn_face.h"
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

std::string StagingDir(const Cluster& c, const std::string& app_id) {
  return "/user/" + c.user + "/.tony/" + app_id;
}

// Uploads one staged file and describes it as a LocalResource (exact size and mtime,
// docs/hadoop-ipc.md §6).
Result<engine::YarnResource> Upload(hadoop::hdfs::WebHdfs& fs, const Cluster& c,
                                    const std::string& local, const std::string& remote_dir,
                                    const std::string& name, const std::string& permission) {
  std::string remote = remote_dir + "/" + name;
  TONY_RETURN_IF_ERROR(fs.CreateFromFile(remote, local, permission));
  TONY_ASSIGN_OR_RETURN(auto st, fs.GetFileStatus(remote));
  return engine::YarnResource{
      name,
      {"hdfs", c.conf.fs_host, c.conf.fs_port, remote, st.length, st.modification_time},
      false,
      {}};
}

// The resources staged for the containers: what every executor (by role) and the AM localize.
struct StagedResources {
  std::vector<engine::YarnResource> tasks;
  std::vector<engine::YarnResource> am;
};

// One resource entry as YARN localizes it: a local file uploaded (a directory zipped and
// unpacked by the NM), a remote one localized from where it is with the size and time the
// NameNode reports, which the NM checks. nullopt: an --hdfs_classpath path that does not exist,
// skipped with a warning as TonY does.
Result<std::optional<engine::YarnResource>> LocalizeResource(
    hadoop::hdfs::WebHdfs& fs, const Cluster& c, const ResourceRef& ref, bool from_classpath,
    const history::JobPaths& paths, const std::string& remote_dir, size_t n) {
  if (!ref.remote) {
    TONY_ASSIGN_OR_RETURN(std::string local, AbsolutePath(ref.source));
    bool zip_dir = IsDirectory(local);
    if (zip_dir) {
      std::string zipped = paths.Staging() + "/resource-" + std::to_string(n) + ".zip";
      TONY_RETURN_IF_ERROR(RunQuiet({"zip", "-q", "-r", "-y", zipped, "."}, local)
                               .WithContext("archiving resource " + ref.text));
      local = zipped;
    }
    // The NM picks how to unpack an ARCHIVE by the uploaded file's name.
    std::string upload_name =
        "resource-" + std::to_string(n) + "-" + ref.name + (zip_dir ? ".zip" : "");
    TONY_ASSIGN_OR_RETURN(engine::YarnResource r,
                          Upload(fs, c, local, remote_dir, upload_name, "600"));
    r.name = ref.name;
    r.archive = ref.archive || zip_dir;
    return std::optional<engine::YarnResource>(r);
  }
  if (!ref.host.empty() && ref.host != c.conf.fs_host) {
    return InvalidArgument("resource " + ref.text + ": only the default file system's (" +
                           c.conf.fs_host + ") paths can be localized");
  }
  auto st = fs.GetFileStatus(ref.path);
  if (!st.ok() && st.status().code() == StatusCode::kNotFound && from_classpath) {
    std::cerr << "tony: warning: --hdfs_classpath " << ref.source << " does not exist; skipped\n";
    return std::optional<engine::YarnResource>();
  }
  if (!st.ok()) return st.status().WithContext("resource " + ref.text);
  // A directory is localized whole (YARN copies it recursively).
  engine::YarnResource r{ref.name,
                         {ref.scheme, c.conf.fs_host, ref.host.empty() ? c.conf.fs_port : ref.port,
                          ref.path, st->length, st->modification_time},
                         ref.archive,
                         {}};
  return std::optional<engine::YarnResource>(r);
}

// tony.containers.resources go to every container, the AM's included (as TonY);
// tony.<role>.resources to that role's; tony.am.resources to the AM's.
Result<StagedResources> StageResources(hadoop::hdfs::WebHdfs& fs, const Cluster& c,
                                       const Configuration& conf, const JobSpec& spec,
                                       const SubmitOptions& o, const history::JobPaths& paths,
                                       const std::string& remote_dir) {
  struct Scope {
    std::string key;
    std::vector<std::string> roles;
    bool tasks = true;
    bool am = false;
  };
  std::vector<Scope> scopes = {{keys::kContainersResources, {}, true, true},
                               {keys::kAmResources, {}, false, true}};
  for (const RoleSpec& r : spec.roles)
    scopes.push_back({keys::ForRole(keys::kRoleResources, r.name), {r.name}});
  std::set<std::string> classpath;
  for (const auto& p : o.hdfs_classpath) {
    classpath.insert(p.find("://") == std::string::npos ? "hdfs://" + p : p);
  }
  StagedResources out;
  size_t n = 0;
  for (const Scope& scope : scopes) {
    for (const std::string& entry : SplitTrimmed(conf.GetOr(scope.key, ""), ',')) {
      TONY_ASSIGN_OR_RETURN(ResourceRef ref, ParseResourceRef(entry));
      TONY_ASSIGN_OR_RETURN(
          std::optional<engine::YarnResource> r,
          LocalizeResource(fs, c, ref, classpath.count(entry) > 0, paths, remote_dir, n++));
      if (!r) continue;
      r->roles = scope.roles;
      if (scope.tasks) out.tasks.push_back(*r);
      if (scope.am) out.am.push_back(*r);
    }
  }
  // The job's own Hadoop, for every task container (the AM runs no JVM): an ARCHIVE the NM
  // unpacks into JobSpec::hadoop_archive.
  const std::string location(Trim(conf.GetOr(keys::kApplicationHadoopLocation, "")));
  if (!location.empty()) {
    TONY_ASSIGN_OR_RETURN(ResourceRef ref, HadoopLocationResource(location));
    TONY_ASSIGN_OR_RETURN(std::optional<engine::YarnResource> r,
                          LocalizeResource(fs, c, ref, false, paths, remote_dir, n++));
    if (r) out.tasks.push_back(*r);
  }
  return out;
}

// One container's ask against the largest container the RM grants (GetNewApplicationResponse's
// maximumCapability, §4.3, which carries yarn.io/gpu only when the cluster declares that type).
// `role` is the role whose keys set the ask, or "am" for the coordinator's (tony.am.memory, ...:
// keys::ForRole(keys::kRoleMemory, "am") is keys::kAmMemory).
Status CheckFits(const std::string& role, const std::string& who, const yarn::Resource& want,
                 const yarn::Resource& max) {
  std::string key;
  if (want.memory_mb > max.memory_mb) key = keys::ForRole(keys::kRoleMemory, role);
  if (key.empty() && want.vcores > max.vcores) key = keys::ForRole(keys::kRoleVcores, role);
  const bool gpus = key.empty() && want.gpus > max.gpus;
  if (gpus) key = keys::ForRole(keys::kRoleGpus, role);
  if (key.empty()) return Status::Ok();
  std::string asks = key + ": " + who + " asks for " + yarn::ToString(want);
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
  TONY_RETURN_IF_ERROR(
      CheckFits("am", "the coordinator", {spec.am_memory_mb, spec.am_vcores, spec.am_gpus}, max));
  for (const auto& r : spec.roles) {
    TONY_RETURN_IF_ERROR(
        CheckFits(r.name, "each " + r.name + " task", {r.memory_mb, r.vcores, r.gpus}, max));
  }
  return Status::Ok();
}

// The queue's maximum share of the cluster: CapacityScheduler's absolute maximum capacity of the
// default partition where it reports one (QueueConfigurationsProto), else maximumCapacity (which
// CapacityScheduler gives relative to the parent queue: for a queue under another than root an
// overestimate, which can only make the check refuse less; FairScheduler gives it of the cluster).
// CapacityScheduler's maximum AM share (maxAMPercentage) is not checked: it lets the first
// application of a queue start whatever that share, so it never keeps a job out for good.
std::optional<FitQueue> QueueShare(const pb::QueueInfoProto& q, const std::string& name) {
  double share = q.has_maximumcapacity() ? q.maximumcapacity() : -1;
  for (const auto& entry : q.queueconfigurationsmap()) {
    if (entry.partitionname().empty() && entry.queueconfigurations().has_absolutemaxcapacity()) {
      share = entry.queueconfigurations().absolutemaxcapacity();
    }
  }
  if (share <= 0 || share >= 1) return std::nullopt;  // unknown, or the whole cluster
  return FitQueue{name, share};
}

// Refuses a job that can never fit the cluster (engine/yarn/client/fit_check.h), from the nodes and
// the queue the RM reports now. A call that fails refuses nothing: the check is skipped with a
// warning, and an RM that cannot be reached at all meets the submission's own error path.
Status CheckClusterFits(yarn::ApplicationClient& rm, const Cluster& c, const Configuration& conf,
                        const JobSpec& spec) {
  if (spec.skip_fit_check) return Status::Ok();
  auto reports = rm.GetClusterNodes();
  FitInput in;
  if (reports.ok()) {
    for (const auto& r : *reports) {
      if (r.node_state() != pb::NS_RUNNING) continue;
      in.nodes.push_back(
          {yarn::FromProto(r.capability()), {r.node_labels().begin(), r.node_labels().end()}});
    }
  }
  if (auto skipped =
          FitCheckSkipped(reports.status(), in.nodes.size(), reports.ok() ? reports->size() : 0)) {
    std::cerr << "tony: warning: " << *skipped << "\n";
    return Status::Ok();
  }
  // Vcores never keep a job from running on a scheduler that places by memory alone.
  hadoop::SchedulerConf scheduler = hadoop::ReadSchedulerConf(c.conf);
  WarnIfFailed(scheduler.capacity_scheduler_error, "the fit check",
               "it takes the scheduler to place containers by memory alone");
  in.count_vcores = scheduler.counts_vcores;
  // The scheduler rounds every ask up to its minimum allocation; only where yarn-site says it.
  in.gangs = JobGangs(spec, conf, conf.GetOr(keys::kApplicationNodeLabel, ""),
                      scheduler.min_allocation_mb);
  if (auto queue = rm.GetQueueInfo(spec.queue); queue.ok()) {
    in.queue = QueueShare(*queue, spec.queue);
  } else {
    std::cerr << "tony: warning: " << queue.status().message() << "; the queue's capacity is not "
              << "checked\n";
  }
  return CheckJobFits(in);
}

// The marker a --debug job leaves in its job dir, so that `tony kill` keeps its staging dir too.
constexpr char kKeepStagingFile[] = "keep-staging";

// The job's staging dir on HDFS and its local copies in the job dir; not a --debug job's.
void RemoveStaging(const Cluster& c, const std::string& app_id) {
  const history::JobPaths paths(history::JobsRoot() + "/" + app_id);
  if (PathExists(JoinPath(paths.root, kKeepStagingFile))) return;  // tony submit --debug
  WarnIfFailed(RemoveAll(paths.Staging()), "the job's local staging copy is left");
  const std::string remote = StagingDir(c, app_id);
  auto deleted = MakeWebHdfs(c.conf, c.security, c.webhdfs)->Delete(remote);
  WarnIfFailed(deleted.status(), "the staging dir " + remote + " of " + app_id + " is left",
               "remove it with: hdfs dfs -rm -r " + remote);
}

// The YARN engine's hooks for FollowJob: the application's report until the AM listens, then
// the coordinator's status; the RM's report again whenever the coordinator does not answer.
class YarnFollower final : public JobFollower {
 public:
  YarnFollower(yarn::ApplicationClient& rm, const pb::ApplicationIdProto& app,
               const history::JobPaths& paths, const std::string& secret, rpc::JobTls tls)
      : rm_(rm),
        app_(app),
        app_id_(yarn::ApplicationIdString(app)),
        paths_(paths),
        secret_(secret),
        tls_(std::move(tls)) {
    last_.set_job_id(app_id_);
  }

  std::string Name() const override { return app_id_; }
  rpc::CoordinatorClient* Coordinator() override { return am_.get(); }

  void OnStatus(const rpc::JobStatus& status) override {
    last_ = status;
    record_warner_.WarnIfFailed(history::WriteJobStatus(paths_, last_),
                                "the local record of " + app_id_ + " is not updated");
    for (const auto& t : last_.tasks()) {
      if (t.log_url().empty() || !announced_.insert(t.container_id()).second) continue;
      std::cout << "tony: " << t.role() << ":" << t.index() << " in " << t.container_id()
                << ", logs " << t.log_url() << "\n";
    }
  }

  void OnCoordinatorError(const Status& error) override {
    am_warner_.WarnIfFailed(error, "the AM of " + app_id_ + " did not answer",
                            "following the application through the ResourceManager");
  }

  void KillWithoutCoordinator(const std::string& reason) override {
    WarnIfFailed(rm_.ForceKillApplication(app_, reason), "could not kill " + app_id_,
                 "it may go on running (tony kill " + app_id_ + ")");
  }

  std::optional<rpc::JobStatus> OnNoAnswer(const rpc::JobStatus& /*last*/) override {
    am_.reset();  // the AM went away or is unreachable: fall back to the RM's report
    int64_t now = SystemClock().MonotonicMs();
    if (now < next_report_ms_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(next_report_ms_ - now));
    }
    next_report_ms_ = SystemClock().MonotonicMs() + 500;
    auto r = rm_.GetApplicationReport(app_);
    if (report_warner_.WarnIfFailed(r.status(), "no report of " + app_id_)) return std::nullopt;
    std::string state(yarn::ApplicationStateName(r->yarn_application_state()));
    if (state != last_state_) {
      std::cout << "tony: application " << app_id_ << " is " << state << "\n" << std::flush;
      last_state_ = state;
    }
    if (r->rpc_port() > 0 && r->rpc_port() <= 65535 && !r->host().empty() && r->host() != "N/A") {
      am_address_ = HostPort{r->host(), static_cast<uint16_t>(r->rpc_port())}.ToString();
    }
    if (yarn::IsTerminal(r->yarn_application_state())) {
      if (auto end = FinalStatusFromLingeringAm()) return end;
      return EndedWithoutCoordinator(*r);
    }
    if (r->yarn_application_state() == pb::RUNNING && !am_address_.empty()) {
      am_ = std::make_unique<rpc::CoordinatorClient>(am_address_, secret_, tls_);
    }
    return std::nullopt;
  }

  rpc::JobStatus Force(const rpc::JobStatus& /*last*/) override {
    WarnIfFailed(rm_.ForceKillApplication(app_, InterruptForcedReason()),
                 "could not kill " + app_id_, "it may go on running (tony kill " + app_id_ + ")");
    last_ =
        RecordJobEnd(paths_, last_, rpc::KILLED, InterruptForcedReason(), UnendedTasks::kStopped,
                     "forced stop: tony did not wait for the task to end");
    return last_;
  }

 private:
  // The AM unregisters as soon as the job ends, then waits for a client to read its final status
  // (tony.am.wait-client-signal-stop-timeout-sec, as TonY's does). A client that missed the AM
  // while it ran (a job shorter than a report poll, a client stopped or slow) asks it once now:
  // only the AM has every task's end, container and log URL.
  std::optional<rpc::JobStatus> FinalStatusFromLingeringAm() {
    if (IsFinished(last_) || am_address_.empty() || asked_after_end_) return std::nullopt;
    asked_after_end_ = true;
    am_.reset();
    rpc::CoordinatorClient am(am_address_, secret_, tls_);
    rpc::GetJobStatusRequest req;
    req.set_after_version(-1);
    req.set_wait_ms(0);
    auto status = am.GetJobStatus(req, kFinalStatusTimeoutMs);
    if (WarnIfFailed(
            status.status(),
            "the AM of " + app_id_ + " at " + am_address_ + " did not give its final status",
            "the ResourceManager's report is all there is of the tasks' ends")) {
      return std::nullopt;
    }
    if (!IsFinished(*status)) return std::nullopt;  // cannot be: the RM says it unregistered
    OnStatus(*status);
    return last_;
  }

  // The application ended without the coordinator telling us: the RM has the last word.
  rpc::JobStatus EndedWithoutCoordinator(const pb::ApplicationReportProto& report) {
    if (IsFinished(last_)) return last_;
    ApplyFinalReport(report, app_id_, &last_);
    last_ = RecordJobEnd(paths_, last_, last_.final_status(), last_.message(), UnendedTasks::kLost,
                         "lost: the application ended without its coordinator reporting it");
    return last_;
  }

  yarn::ApplicationClient& rm_;
  const pb::ApplicationIdProto& app_;
  std::string app_id_;
  const history::JobPaths& paths_;
  std::string secret_;
  rpc::JobTls tls_;
  static constexpr int kFinalStatusTimeoutMs = 5000;
  std::unique_ptr<rpc::CoordinatorClient> am_;
  std::string am_address_;        // host:port the RM last reported for the AM
  bool asked_after_end_ = false;  // FinalStatusFromLingeringAm ran
  rpc::JobStatus last_;
  std::string last_state_;
  Warner record_warner_;  // failed writes of the local record, at every status
  Warner report_warner_;  // the RM's failed reports, every 500 ms while the AM is away
  Warner am_warner_;      // the AM's failed answers, every 500 ms while it is away
  int64_t next_report_ms_ = 0;
  std::set<std::string> announced_;  // containers whose log URL was printed
};

// `tony status`/`kill` run without the submit's environment: use the Hadoop conf dir the submit
// recorded unless one is set.
// Waits (bounded) until the RM reports the application ended, then gives its state.
std::string AwaitEnd(yarn::ApplicationClient& rm, const pb::ApplicationIdProto& app,
                     std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  std::string state = "UNKNOWN";
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = rm.GetApplicationReport(app);
    if (r.ok()) {
      state = yarn::ApplicationStateName(r->yarn_application_state());
      if (yarn::IsTerminal(r->yarn_application_state())) return state;
    }
    std::this_thread::sleep_for(250ms);
  }
  return state;
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
  if (!new_app.ok()) {
    Status refused = ExplainProxyRefusal(cluster->security, new_app.status());
    if (refused.code() == StatusCode::kPermissionDenied) return Fail(refused);
    if (auto token = ExplainTokenRefusal(cluster->security, new_app.status())) return Fail(*token);
    Status s = new_app.status();
    if (hadoop::ipc::IsRetriableConnectError(s)) {
      s = Status(s.code(), s.message() + " (is the ResourceManager up, and is " +
                               JoinPath(cluster->conf.conf_dir, "yarn-site.xml") +
                               " this cluster's? " + keys::kApplicationNumClientRmConnectRetries +
                               " sets how often the client tries)");
    }
    return Fail(s.WithContext("asking the ResourceManager at " +
                              Join(cluster->conf.RmAddresses(), ", ") + " for an application"),
                kExitJobFailed);
  }
  // After getNewApplication, which leaves nothing on the cluster (it only hands out an id) and
  // reports an RM that cannot be reached with the retries the job asked for; before anything is
  // staged or submitted.
  Status s = CheckClusterFits(rm, *cluster, conf, spec);
  if (s.ok()) s = CheckFits(spec, yarn::FromProto(new_app->maximumcapability()));
  if (!s.ok()) return Fail(s);
  const pb::ApplicationIdProto& app = new_app->application_id();
  std::string app_id = yarn::ApplicationIdString(app);

  // The local job dir, named by the application id, so status/logs/kill take the id.
  history::JobPaths paths(history::JobsRoot() + "/" + app_id);
  std::string secret = RandomHex(32);
  // The control plane's TLS identity for this job alone (rpc/tls.h): the AM serves with it, the
  // executors and this client present it and trust nothing else.
  auto tls = rpc::MakeJobTls();
  if (!tls.ok()) return Fail(tls.status());
  s = MakeNewPrivateDir(paths.root);
  if (s.ok()) s = WriteFileAtomic(paths.FinalConf(), conf.ToXml());
  if (s.ok()) s = rpc::WriteJobSpecFile(paths.SpecFile(), spec);
  if (s.ok() && o.debug) {
    s = WriteFileAtomic(JoinPath(paths.root, kKeepStagingFile),
                        "tony submit --debug: the staged job stays\n");
  }
  std::string bundle;
  if (s.ok()) {
    auto staged = StageLocally(o, paths);
    s = staged.status();
    if (staged.ok()) bundle = *staged;
  }
  if (!s.ok()) {
    WarnIfFailed(RemoveAll(paths.root), "the job dir of " + app_id + " is left");
    return Fail(s.WithContext("staging job " + app_id));
  }

  // Staging on HDFS (§6): everything the AM and the executors localize.
  auto fs_client = MakeWebHdfs(cluster->conf, cluster->security, cluster->webhdfs);
  hadoop::hdfs::WebHdfs& fs = *fs_client;
  std::string remote = StagingDir(*cluster, app_id);
  std::vector<engine::YarnResource> task_files;
  std::vector<engine::YarnResource> am_files;
  s = fs.Mkdirs(remote, "700");
  auto upload = [&](const std::string& local, const std::string& name, const char* perm,
                    bool for_tasks, const char* archive_as = nullptr) {
    if (!s.ok() || !PathExists(local)) return;
    auto r = Upload(fs, *cluster, local, remote, name, perm);
    if (!r.ok()) {
      s = r.status();
      return;
    }
    if (archive_as != nullptr) {
      r->name = archive_as;
      r->archive = true;
    }
    am_files.push_back(*r);
    if (for_tasks) task_files.push_back(*r);
  };
  // An archive the NM unpacks into ./tony-bundle; it recognizes one by the .tar.gz name.
  upload(bundle, std::string(engine::kBundleResource) + ".tar.gz", "600", true,
         engine::kBundleResource);
  // tony-final.xml for people and TonY's tasks (TonY localizes it everywhere); the spec file is
  // what the AM and the executors run the job with.
  upload(paths.FinalConf(), "tony-final.xml", "600", true);
  upload(paths.SpecFile(), rpc::kJobSpecFileName, "600", true);
  upload(paths.Staging() + "/tony_src.zip", "tony_src.zip", "600", true);
  upload(paths.Staging() + "/venv.zip", "venv.zip", "600", true);
  if (s.ok()) {
    auto extra = StageResources(fs, *cluster, conf, spec, o, paths, remote);
    s = extra.status();
    if (extra.ok()) {
      task_files.insert(task_files.end(), extra->tasks.begin(), extra->tasks.end());
      am_files.insert(am_files.end(), extra->am.begin(), extra->am.end());
    }
  }
  std::string resources_file = paths.Staging() + "/" + engine::kResourcesFile;
  if (s.ok()) s = WriteFileAtomic(resources_file, engine::FormatYarnResources(task_files), 0600);
  upload(resources_file, engine::kResourcesFile, "600", false);
  if (!s.ok()) {
    RemoveStaging(*cluster, app_id);
    // A resource that is not there is the user's input; nothing was submitted.
    bool bad_input = s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kNotFound;
    return Fail(s.WithContext("staging to HDFS " + remote),
                bad_input ? kExitBadInput : kExitJobFailed);
  }
  auto tokens = FetchDelegationTokens(cluster->conf, cluster->security, rm, fs);
  if (!tokens.ok()) {
    RemoveStaging(*cluster, app_id);
    return Fail(tokens.status().WithContext("getting delegation tokens"), kExitJobFailed);
  }
  for (const auto& warning : AddOtherNameNodeTokens(cluster->conf, cluster->security, conf,
                                                    cluster->webhdfs.trust, &*tokens)) {
    std::cerr << "tony: warning: " << warning << "\n";
  }

  // The AM: `tony am` in a container of its own (§4.3, §5).
  yarn::Submission sub;
  sub.application_id = app;
  sub.name = spec.name;
  sub.queue = spec.queue;
  sub.type = spec.type.empty() ? "TONY" : spec.type;
  sub.tags = spec.tags;
  sub.node_label = conf.GetOr(keys::kApplicationNodeLabel, "");
  sub.view_acl = spec.view_acl;
  sub.modify_acl = spec.modify_acl;
  sub.am_resource = {spec.am_memory_mb, spec.am_vcores, spec.am_gpus};
  for (const auto& f : am_files) {
    yarn::AddLocalResource(&sub.am_container, f.name,
                           yarn::MakeLocalResource(f.file, f.archive ? pb::ARCHIVE : pb::FILE));
  }
  // Every scheduler of an HA pair, in rm-ids order, and the failover policy
  // (engine/yarn_contract.h).
  yarn::AddEnvironment(&sub.am_container, engine::kSchedulerAddressEnv,
                       Join(cluster->conf.SchedulerAddresses(), ","));
  yarn::AddEnvironment(&sub.am_container, engine::kRmFailoverEnv,
                       hadoop::FormatFailoverPolicy(cluster->conf.rm_failover));
  yarn::AddEnvironment(&sub.am_container, "TONY_JOB_ID", app_id);
  // The submitter's log level goes to the AM, and from it to every executor (README "Logs").
  if (const char* level = std::getenv("TONY_LOG_LEVEL");
      level != nullptr && yarn::IsSafeEnvironmentValue(level)) {
    yarn::AddEnvironment(&sub.am_container, "TONY_LOG_LEVEL", level);
  }
  yarn::AddEnvironment(&sub.am_container, engine::kWebProxyEnv,
                       Join(cluster->conf.WebProxyAddresses(), ","));
  // The job secret as a secret key of the AM's credentials, never in a file, the environment or
  // the command line (engine/yarn/yarn_engine.cc does the same for every executor).
  // On a Kerberized cluster the delegation tokens go with it (engine/yarn/client/yarn_security.h).
  hadoop::security::Credentials am_credentials = *tokens;
  // Tokens from a token file are the scheduler's, shared with its other jobs: the RM must not
  // cancel them when this application ends.
  sub.cancel_tokens_when_complete = cluster->security.file_tokens.tokens().empty();
  am_credentials.AddSecret(rpc::kJobSecretAlias, secret);
  am_credentials.AddSecret(rpc::kJobTlsKeyAlias, tls->key_pem);
  am_credentials.AddSecret(rpc::kJobTlsCertAlias, tls->cert_pem);
  if (!cluster->webhdfs.trust.ca_pem.empty()) {
    am_credentials.AddSecret(hadoop::hdfs::kTrustAlias, cluster->webhdfs.trust.ca_pem);
  }
  const std::string keytab = conf.GetOr(keys::kKerberosKeytab, "");
  if (!keytab.empty() && cluster->security.kerberos && cluster->security.proxy_user.empty()) {
    auto bytes = ReadFile(keytab);
    if (!bytes.ok()) return Fail(bytes.status().WithContext(keys::kKerberosKeytab));
    am_credentials.AddSecret(engine::kKeytabAlias, *bytes);
    am_credentials.AddSecret(engine::kPrincipalAlias, cluster->security.kerberos->principal());
  }
  yarn::SetTokens(&sub.am_container, am_credentials);
  if (spec.docker_enabled) {
    yarn::AddDockerRuntime(&sub.am_container, spec.am_docker_image, spec.docker_mounts);
  }
  // The AM removes the staging dir once it has unregistered, should this client be gone by then
  // (not a --debug job's).
  if (!o.debug) yarn::AddEnvironment(&sub.am_container, engine::kStagingDirEnv, remote);
  yarn::AddEnvironment(&sub.am_container, engine::kStagingNameNodeEnv, cluster->NameNodes());
  yarn::AddEnvironment(&sub.am_container, engine::kStagingUserEnv, cluster->user);
  if (cluster->webhdfs.https) {
    yarn::AddEnvironment(&sub.am_container, engine::kStagingWebHdfsHttpsEnv, "true");
  }
  if (!cluster->webhdfs.datanode_hosts.empty()) {
    yarn::AddEnvironment(&sub.am_container, engine::kStagingDataNodeHostsEnv,
                         Join(cluster->webhdfs.datanode_hosts, ","));
  }
  if (cluster->conf.yarn_https) {
    yarn::AddEnvironment(&sub.am_container, engine::kNodeWebSchemeEnv, "https");
  }
  std::vector<std::string> namenodes = cluster->conf.NameNodeWebAddresses();
  yarn::AddEnvironment(&sub.am_container, engine::kNameNodeHttpEnv, Join(namenodes, ","));
  if (!namenodes.empty()) {
    yarn::AddEnvironment(&sub.am_container, engine::kWebHdfsUrlEnv,
                         cluster->conf.WebHdfsScheme() + "://" + namenodes.front() + "/webhdfs/v1");
  }
  if (cluster->security.secure()) {
    yarn::AddEnvironment(&sub.am_container, engine::kHdfsTokenServiceEnv,
                         DefaultFsTokenService(cluster->conf));
  }
  sub.am_container.add_command(std::string("exec ") + engine::kBundleBinary +
                               " am --job-dir . --engine yarn 1><LOG_DIR>/am.log 2>&1");
  s = rm.SubmitApplication(yarn::BuildSubmissionContext(sub));
  if (!s.ok()) {
    RemoveStaging(*cluster, app_id);
    return Fail(s, kExitJobFailed);
  }
  WarnIfFailed(RecordClusterConf(*cluster, paths.root), "the job dir of " + app_id,
               "tony status, logs and kill of it need HADOOP_CONF_DIR set to this cluster's");
  // Uploaded: the local copies are no longer needed (a --debug job keeps them).
  if (!o.debug) WarnIfFailed(RemoveAll(paths.Staging()), "the job's local staging copy is left");
  std::string tracking;
  if (auto r = rm.GetApplicationReport(app); r.ok()) tracking = r->trackingurl();
  std::cout << "tony: job " << app_id << " on the yarn engine (" << spec.framework << ", "
            << spec.TotalInstances() << " tasks)\n"
            << "tony: application " << app_id << " submitted to the ResourceManager "
            << rm.Current().ToString() << "\n"
            << "tony: tracking URL " << (tracking.empty() ? "(none yet)" : tracking) << "\n"
            << "tony: job dir " << paths.root << "\n";
  std::string fs_root = cluster->conf.default_fs;
  while (!fs_root.empty() && fs_root.back() == '/') fs_root.pop_back();
  const std::string debug_note = "tony: --debug: the staged job is kept in " + paths.Staging() +
                                 " and " + fs_root + remote + "\n";
  if (o.debug) std::cout << debug_note;
  std::cout << std::flush;

  InstallInterruptHandlers();

  YarnFollower follower(rm, app, paths, secret, *tls);
  rpc::JobStatus final_status = FollowJob(follower);
  std::string yarn_state = AwaitEnd(rm, app, 60s);
  if (yarn_state != "FINISHED" && yarn_state != "FAILED" && yarn_state != "KILLED") {
    WarnIfFailed(
        rm.ForceKillApplication(app, "tony submit: the job ended but the application did not"),
        "could not kill " + app_id, "it may go on running (tony kill " + app_id + ")");
    yarn_state = AwaitEnd(rm, app, 30s);
  }
  RemoveStaging(*cluster, app_id);
  std::cout << "tony: application " << app_id << " " << yarn_state << "\n"
            << RenderSummary(final_status) << (o.debug ? debug_note : "") << std::flush;
  return Succeeded(final_status) ? kExitSucceeded : kExitJobFailed;
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
