#include "engine/yarn/client/yarn_cluster.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "common/files.h"
#include "hadoop/ipc/connection.h"
#include "hadoop/yarn/records.h"
#include "history/job_dir.h"

namespace tony::client {

namespace yarn = hadoop::yarn;
namespace pb = hadoop::yarn::pb;

constexpr const auto& kRmConnectRetriesKey = keys::kApplicationNumClientRmConnectRetries;

void ApplyClientRmRetries(int retries, hadoop::ClusterConf& conf) {
  const std::chrono::milliseconds interval = conf.rm_retry_interval;
  conf.rm_connect.max_connect_attempts = 1 + retries;
  conf.rm_connect.initial_backoff =
      std::min<std::chrono::milliseconds>(interval, std::chrono::seconds(1));
  conf.rm_connect.max_backoff = interval;
  if (!conf.rm_failover_attempts_set) {
    int64_t wait = static_cast<int64_t>(retries) * interval.count();
    int64_t base = conf.rm_failover.sleep_base.count();
    conf.rm_failover.max_failovers =
        static_cast<int>(std::min<int64_t>(base > 0 ? wait / base : retries, 1000000));
  }
}

Result<std::vector<hadoop::ipc::ServerAddress>> RmServers(const hadoop::ClusterConf& c) {
  std::vector<std::string> ids;
  for (const auto& rm : c.resource_managers) ids.push_back(rm.id);
  return hadoop::ToServers(c.RmAddresses(), ids, "yarn.resourcemanager.address");
}

Result<hadoop::SiteFiles> NamedSiteFiles(const Configuration& job_conf) {
  hadoop::SiteFiles files;
  for (auto [key, out] : {std::pair{kYarnConfPathKey, &files.yarn_site},
                          std::pair{kHdfsConfPathKey, &files.hdfs_site}}) {
    const ConfigValue* v = job_conf.Find(key);
    if (v == nullptr || Trim(v->value).empty()) continue;
    *out = std::string(Trim(v->value));
    if (!PathExists(*out) || IsDirectory(*out)) {
      return NotFound(std::string(key) + " = \"" + *out + "\" (from " + v->source +
                      "): no such file");
    }
  }
  return files;
}

namespace {

Status LoadWebHdfsOptions(const Configuration& job_conf, Cluster& c) {
  c.webhdfs.https = c.conf.webhdfs_https;
  for (const auto& host : SplitTrimmed(job_conf.GetOr(kDataNodeHostsKey, ""), ',')) {
    if (!host.empty()) c.webhdfs.datanode_hosts.push_back(ToLower(host));
  }
  c.ca_file = std::string(Trim(job_conf.GetOr(kSslCaFileKey, "")));
  // The job's record keeps it for `tony logs` from another directory.
  if (!c.ca_file.empty()) c.ca_file = std::filesystem::absolute(c.ca_file).string();
  // Loaded only when https is spoken: an http cluster's client needs no trust store.
  if (!c.conf.webhdfs_https && !c.conf.yarn_https &&
      job_conf.GetOr(keys::kOtherNamenodes, "").find("swebhdfs://") == std::string::npos) {
    return Status::Ok();
  }
  TONY_ASSIGN_OR_RETURN(c.webhdfs.trust,
                        hadoop::hdfs::LoadTrust(c.ca_file, kSslCaFileKey, c.conf.ssl_client));
  return Status::Ok();
}

}  // namespace

Result<Cluster> LoadCluster(const std::string& conf_dir, const Configuration& job_conf) {
  TONY_ASSIGN_OR_RETURN(hadoop::SiteFiles files, NamedSiteFiles(job_conf));
  std::string dir = conf_dir;
  // TonY's clients read core-site.xml from their classpath; with no conf dir, tony reads the one
  // beside the named yarn-site (else hdfs-site) file.
  if (dir.empty() && !(files.yarn_site.empty() && files.hdfs_site.empty())) {
    dir = std::filesystem::path(files.yarn_site.empty() ? files.hdfs_site : files.yarn_site)
              .parent_path()
              .string();
    if (dir.empty()) dir = ".";
  }
  if (dir.empty()) {
    return FailedPrecondition(
        "the yarn engine needs the cluster's Hadoop config: set HADOOP_CONF_DIR (or "
        "YARN_CONF_DIR) to the directory with core-site.xml, yarn-site.xml and hdfs-site.xml, or "
        "name the files with " +
        std::string(kYarnConfPathKey) + " and " + kHdfsConfPathKey);
  }
  Cluster c;
  c.site_files = files;
  TONY_ASSIGN_OR_RETURN(c.conf, hadoop::LoadClusterConf(dir, files));
  // Validated with the job spec on submit; status, logs and kill of an id have no job file.
  auto retries = ParseInt64(Trim(job_conf.GetOr(kRmConnectRetriesKey, "3")));
  if (!retries || *retries < 0) {
    return InvalidArgument(kRmConnectRetriesKey + std::string(" = \"") +
                           job_conf.GetOr(kRmConnectRetriesKey, "") +
                           "\": expected an integer >= 0");
  }
  ApplyClientRmRetries(static_cast<int>(std::min<int64_t>(*retries, 1000)), c.conf);
  c.user = hadoop::ipc::DefaultUserName();
  TONY_ASSIGN_OR_RETURN(c.security, LoginForCluster(c.conf, job_conf, c.user));
  c.user = c.security.user;
  TONY_RETURN_IF_ERROR(LoadWebHdfsOptions(job_conf, c));
  std::string fs = c.conf.default_fs;
  if (!StartsWith(fs, "hdfs://")) {
    return FailedPrecondition("fs.defaultFS is " + fs + " in " + dir +
                              "; the yarn engine stages to HDFS (hdfs://host:port or "
                              "hdfs://<nameservice>)");
  }
  return c;
}

Result<std::unique_ptr<yarn::ApplicationClient>> ConnectRm(const Cluster& cluster) {
  TONY_ASSIGN_OR_RETURN(auto servers, RmServers(cluster.conf));
  return MakeRmClient(cluster.conf, cluster.security, std::move(servers));
}

std::string HadoopConfDirOf(const std::string& application_id) {
  std::string dir = hadoop::HadoopConfDir();
  if (!dir.empty()) return dir;
  if (!history::CheckJobRecordsReadable().ok()) return "";  // never a planted record's cluster
  history::JobPaths paths(history::JobsRoot() + "/" + application_id);
  auto recorded = ReadFile(paths.root + "/" + kConfDirRecord);
  return recorded.ok() ? std::string(Trim(*recorded)) : "";
}

Status RecordClusterConf(const Cluster& cluster, const std::string& job_dir) {
  TONY_RETURN_IF_ERROR(
      WriteFileAtomic(JoinPath(job_dir, kConfDirRecord), cluster.conf.conf_dir + "\n"));
  std::string named;
  if (!cluster.site_files.yarn_site.empty()) {
    named += std::string(kYarnConfPathKey) + "=" + cluster.site_files.yarn_site + "\n";
  }
  if (!cluster.site_files.hdfs_site.empty()) {
    named += std::string(kHdfsConfPathKey) + "=" + cluster.site_files.hdfs_site + "\n";
  }
  if (!cluster.ca_file.empty()) named += std::string(kSslCaFileKey) + "=" + cluster.ca_file + "\n";
  if (!cluster.webhdfs.datanode_hosts.empty()) {
    named +=
        std::string(kDataNodeHostsKey) + "=" + Join(cluster.webhdfs.datanode_hosts, ",") + "\n";
  }
  if (named.empty()) return Status::Ok();
  return WriteFileAtomic(JoinPath(job_dir, kSiteFilesRecord), named);
}

Configuration ClusterKeysOf(const std::string& application_id) {
  Configuration keys;
  if (!history::CheckJobRecordsReadable().ok()) return keys;  // never a planted record's keys
  // With HADOOP_CONF_DIR set the environment names the cluster; the https keys still hold.
  bool site_files = hadoop::HadoopConfDir().empty();
  history::JobPaths paths(history::JobsRoot() + "/" + application_id);
  const std::string record = JoinPath(paths.root, kSiteFilesRecord);
  auto text = ReadFile(record);
  if (!text.ok()) return keys;
  for (const auto& line : SplitTrimmed(*text, '\n')) {
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = line.substr(0, eq);
    if (site_files || key == kSslCaFileKey || key == kDataNodeHostsKey) {
      keys.Set(key, line.substr(eq + 1), record);
    }
  }
  return keys;
}

void ApplyFinalReport(const pb::ApplicationReportProto& report, const std::string& app_id,
                      rpc::JobStatus* status) {
  status->set_phase(rpc::FINISHED);
  rpc::FinalStatus final_status = rpc::FAILED;
  if (report.final_application_status() == pb::APP_SUCCEEDED) final_status = rpc::SUCCEEDED;
  if (report.final_application_status() == pb::APP_KILLED ||
      report.yarn_application_state() == pb::KILLED) {
    final_status = rpc::KILLED;
  }
  status->set_final_status(final_status);
  status->set_message("YARN application " + app_id + " " +
                      std::string(yarn::ApplicationStateName(report.yarn_application_state())) +
                      ": " + report.diagnostics());
  if (report.finishtime() > 0 && status->end_wall_ms() == 0) {
    status->set_end_wall_ms(report.finishtime());
  }
  if (report.starttime() > 0 && status->start_wall_ms() == 0) {
    status->set_start_wall_ms(report.starttime());
  }
}

}  // namespace tony::client
