#include "engine/yarn/client/yarn_face.h"

#include "common/strings.h"
#include "engine/yarn/client/yarn_cluster.h"
#include "engine/yarn/client/yarn_submit.h"
#include "engine/yarn/client/yarn_view.h"
#include "hadoop/yarn/records.h"

namespace tony::client {
namespace {

class YarnClientFace final : public EngineClientFace {
 public:
  engine::EngineKind Kind() const override { return engine::EngineKind::kYarn; }
  bool FetchesRemoteResources() const override { return true; }
  int Submit(const SubmitOptions& options, const Configuration& conf,
             const JobSpec& spec) const override {
    return SubmitToYarn(options, conf, spec);
  }

  bool ReadsJobFile(const std::string& uri) const override { return StartsWith(uri, "hdfs://"); }
  Result<std::string> ReadJobFile(const std::string& uri,
                                  const Configuration& login) const override {
    return ReadJobFileFromHdfs(uri, login);
  }

  bool OwnsJobId(const std::string& job_id) const override {
    return StartsWith(job_id, "application_");
  }
  bool ValidJobId(const std::string& job_id) const override {
    return hadoop::yarn::ParseApplicationId(job_id).ok();
  }
  Status CanAskCluster(const std::string& job_id) const override {
    if (!HadoopConfDirOf(job_id).empty()) return Status::Ok();
    return FailedPrecondition("set HADOOP_CONF_DIR to ask the cluster about " + job_id);
  }
  Result<rpc::JobStatus> ClusterStatus(const std::string& job_id,
                                       const rpc::JobStatus& last) const override {
    return YarnJobStatus(job_id, last);
  }
  Result<std::vector<ClusterJob>> ListClusterJobs() const override {
    TONY_ASSIGN_OR_RETURN(auto apps, ListYarnApplications());
    std::vector<ClusterJob> jobs;
    jobs.reserve(apps.size());
    for (auto& a : apps) {
      jobs.push_back(ClusterJob{std::move(a.id), std::move(a.name), std::move(a.user),
                                std::move(a.state), std::move(a.message), a.start_ms, a.finish_ms,
                                a.ended});
    }
    return jobs;
  }
  int KillOnCluster(const std::string& job_id) const override {
    return KillYarnApplication(job_id, HadoopConfDirOf(job_id));
  }
  Result<std::vector<std::string>> AmLogUrls(const std::string& job_id) const override {
    return AmContainerLogUrls(job_id);
  }
  Result<hadoop::hdfs::HttpGetOptions> LogWebAccess(const std::string& job_id,
                                                    bool https) const override {
    return YarnWebAccess(job_id, https);
  }
};

}  // namespace

std::unique_ptr<EngineClientFace> MakeYarnClientFace() {
  return std::make_unique<YarnClientFace>();
}

}  // namespace tony::client
