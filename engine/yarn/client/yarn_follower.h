// Following a submitted YARN application from `tony submit` (and waiting for one to end, for
// `tony kill`): the application's report from the ResourceManager until the AM listens, then the
// coordinator's status over its control plane (client/follow.h), mirrored into the local job
// dir; the RM's report again whenever the coordinator does not answer.
// Thread-safety: call from the command's thread.
#pragma once

#include <chrono>
#include <string>

#include "hadoop/yarn/clients.h"
#include "history/job_dir.h"
#include "rpc/client.h"
#include "rpc/tony.pb.h"

namespace tony::client {

// Follows the application `app` until the job ends (or the user stops following it) and returns
// the job's final status. `secret` and `tls` are the job's, to reach its coordinator (the AM).
rpc::JobStatus FollowApplication(hadoop::yarn::ApplicationClient& rm,
                                 const hadoop::yarn::pb::ApplicationIdProto& app,
                                 const history::JobPaths& paths, const std::string& secret,
                                 const rpc::JobTls& tls);

// Waits (bounded) until the RM reports the application ended, then gives its state.
std::string AwaitEnd(hadoop::yarn::ApplicationClient& rm,
                     const hadoop::yarn::pb::ApplicationIdProto& app, std::chrono::seconds limit);

}  // namespace tony::client
