// The AM of a YARN job as `tony submit` asks the ResourceManager for it: `tony am` in a container
// of its own (docs/hadoop-ipc.md §4.3, §5), with the files it localizes, its environment (the
// engine's contract with the AM, engine/yarn_contract.h), its credentials (the job's secret and
// TLS identity, the delegation tokens, a keytab login) and the application's submission fields.
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
#include "hadoop/security/credentials.h"
#include "hadoop/yarn/clients.h"
#include "rpc/client.h"

namespace tony::client {

// What the AM's launch is built from; every reference outlives the call.
struct AmLaunchInputs {
  const SubmitOptions& options;
  const Configuration& conf;
  const JobSpec& spec;
  const Cluster& cluster;
  const hadoop::yarn::pb::ApplicationIdProto& app;
  const std::string& secret;                          // the job's control-plane secret
  const rpc::JobTls& tls;                             // the job's TLS identity (rpc/tls.h)
  const std::string& staging_dir;                     // on HDFS (engine/yarn/client/hdfs_staging.h)
  const std::vector<engine::YarnResource>& am_files;  // what the AM localizes
  const hadoop::security::Credentials& tokens;        // the delegation tokens fetched for it
};

// docs/am-restart.md §2: a job with tony.am.retry-count > 0 (not single-node: it has no tasks to
// keep, and TonY retries no single-node job) asks for 1 + retry-count AM attempts, each keeping
// the tasks' containers, and its executors ride out a dead AM for kAmReconnectWindowMs
// (JobSpec::am_reconnect_window_ms, §6). Otherwise one attempt, and a dead AM ends the job.
bool KeepsTasksAcrossAmAttempts(const JobSpec& spec);
// The spec as the YARN client stages it: the window set as above.
JobSpec WithAmReconnectWindow(JobSpec spec);

// The RM gives an application at most yarn.resourcemanager.am.max-attempts attempts (Hadoop's
// default 2), whatever it asks for. A note for the user when that caps the attempts `spec` asks
// for, read from this client's Hadoop configuration (the RM's own may differ: the note names the
// conf dir);
// empty when nothing is capped.
std::string AmAttemptsCapNote(const JobSpec& spec, const hadoop::ClusterConf& cluster);

// The submission of the job's AM. Fails only when the keytab the job names cannot be read.
Result<hadoop::yarn::Submission> BuildAmSubmission(const AmLaunchInputs& in);

}  // namespace tony::client
