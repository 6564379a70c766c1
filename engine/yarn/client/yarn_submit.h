// `tony submit` on YARN and `tony kill <application id>` (the AM's side: coordinator/am_main.h).
//
// The client reads the cluster's Hadoop XML files ($HADOOP_CONF_DIR or $YARN_CONF_DIR), gets an
// application id (which is also the job id: the local job dir is $TONY_HOME/jobs/<app id>),
// stages tony-final.xml, the secret, the src/venv zips and the tony binary itself to
// /user/<user>/.tony/<app id> over WebHDFS, and submits the coordinator as the AM
// (docs/hadoop-ipc.md §4.3). It then follows the job through the coordinator's control plane (the
// AM registers the control-plane address as its host/rpc_port), mirrors the status into the local
// job dir, and removes the staging dir once the application has ended.
#pragma once

#include <string>

#include "client/submit.h"
#include "config/configuration.h"
#include "config/job_spec.h"
#include "history/job_dir.h"
#include "rpc/tony.pb.h"

namespace tony::client {

// Called by Submit() once the inputs and the job spec are valid. Returns the exit code.
int SubmitToYarn(const SubmitOptions& options, const Configuration& conf, const JobSpec& spec);

// forceKillApplication on the cluster `conf_dir` describes, then waits for KILLED and removes the
// staging dir.
int KillYarnApplication(const std::string& application_id, const std::string& conf_dir);

// TonY's --conf_file hdfs://...: the job file's text, read over WebHDFS from the cluster
// HADOOP_CONF_DIR names (its default file system: hdfs:///path, or hdfs://<fs.defaultFS
// authority>/path), logged in as `login` says (tony.kerberos.* from --principal/--keytab).
Result<std::string> ReadJobFileFromHdfs(const std::string& uri, const Configuration& login);

}  // namespace tony::client
