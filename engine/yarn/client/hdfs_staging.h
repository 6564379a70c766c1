// A YARN job's staging dir on HDFS, /user/<user>/.tony/<app id> (docs/hadoop-ipc.md §6): what
// `tony submit` uploads there for the AM and the executors to localize, and its removal once the
// application has ended (`tony submit`, `tony kill`). The local copies staged first are the job
// dir's staging/ (client/staging.h).
// Thread-safety: call from the command's thread.
#pragma once

#include <string>
#include <vector>

#include "client/submit.h"
#include "common/status.h"
#include "config/configuration.h"
#include "config/job_spec.h"
#include "engine/yarn/client/yarn_cluster.h"
#include "engine/yarn_contract.h"
#include "hadoop/hdfs/webhdfs.h"
#include "history/job_dir.h"

namespace tony::client {

// The marker a --debug job leaves in its job dir, so that `tony kill` keeps its staging dir too.
inline constexpr char kKeepStagingFile[] = "keep-staging";

// The application's staging dir on the cluster's default file system.
std::string StagingDir(const Cluster& c, const std::string& app_id);

// The resources staged for the containers: what every executor (by role) and the AM localize.
struct StagedResources {
  std::vector<engine::YarnResource> tasks;
  std::vector<engine::YarnResource> am;
};

// Creates `remote` (StagingDir) and uploads into it what the job dir `paths` staged locally (the
// tony bundle at `bundle`, tony-final.xml, the spec file, the src and venv zips), the job's
// tony.*.resources and its Hadoop (tony.application.hadoop.location), and the list of the tasks'
// resources the executors localize (engine::kResourcesFile).
Result<StagedResources> StageToHdfs(hadoop::hdfs::WebHdfs& fs, const Cluster& c,
                                    const Configuration& conf, const JobSpec& spec,
                                    const SubmitOptions& o, const history::JobPaths& paths,
                                    const std::string& bundle, const std::string& remote);

// The job's staging dir on HDFS and its local copies in the job dir; not a --debug job's.
void RemoveStaging(const Cluster& c, const std::string& app_id);

}  // namespace tony::client
