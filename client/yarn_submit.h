// `tony submit` on YARN, `tony kill <application id>`, and `tony am --engine yarn`.
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

// `tony status` of a YARN job that the job dir does not show ended: the RM's report is the truth
// (terminal: the RM's final status and diagnostics; running: the AM's live status when it
// answers). `last` is what the job dir holds (may be empty).
Result<rpc::JobStatus> YarnJobStatus(const history::JobPaths& paths, rpc::JobStatus last);

// forceKillApplication, then waits for KILLED and removes the staging dir.
int KillYarnApplication(const std::string& application_id);

// The coordinator inside the AM container; `job_dir` is the container's working directory.
int RunYarnCoordinator(const std::string& job_dir);

}  // namespace tony::client
