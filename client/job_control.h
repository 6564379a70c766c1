// `tony status` and `tony kill`: acting on a job by id, while it runs or after (`tony logs`:
// client/logs.h).
#pragma once

#include <string>

#include "common/status.h"
#include "history/job_dir.h"
#include "rpc/tony.pb.h"

namespace tony::client {

class EngineClientFace;
class EngineFaces;

// With an id: the job's task table and result (an application id: from the cluster, with or
// without a local record). Without: one line per job under $TONY_HOME/jobs and, when a Hadoop
// conf dir is set, per TONY application of the user on the cluster (job, name, user, started,
// duration, state, message), by start time. `json`: the same as one JSON document on stdout
// (docs/status-json.md), for schedulers and scripts.
// Prints "tony: error: <message>" to stderr and returns 2, the exit status of a command that
// could not do what it was asked (a missing job, an unreadable file).
int CommandError(const std::string& message);

int ShowStatus(const EngineFaces& faces, const std::string& id_or_path, bool json = false);
// Stops the job: SIGTERM to its coordinator, which stops every task; forcibly after 30 s. A job
// of an engine's cluster (an application id): the cluster kills it (EngineClientFace).
int KillJob(const EngineFaces& faces, const std::string& id_or_path);
// The job dir of `id_or_path` (history::ResolveJobDir); for an application id without one here,
// where it would be (the cluster answers for it, given a Hadoop conf dir).
Result<history::JobPaths> JobPathsFor(const EngineFaces& faces, const std::string& id_or_path);
// What the job's coordinator last wrote (status.json; rewritten at every change); on YARN the
// RM's report decides, and an unfinished local job whose coordinator died is recorded FAILED.
Result<rpc::JobStatus> CurrentJobStatus(const EngineFaces& faces, const history::JobPaths& paths);
// The status of a job of `face`'s cluster the job dir does not show ended: the cluster decides,
// and the job dir, when there is one, is updated (a cache).
Result<rpc::JobStatus> CurrentClusterStatus(const EngineClientFace& face,
                                            const history::JobPaths& paths);

}  // namespace tony::client
