// `tony submit` on the local engine: the coordinator runs as a child process of the client, in a
// session of its own (the YARN face: engine/yarn/client/yarn_face.h).
#pragma once

#include <memory>

#include "client/engine_face.h"
#include "client/submit.h"
#include "config/configuration.h"
#include "config/job_spec.h"

namespace tony::client {

// Called by Submit() once the inputs and the job spec are valid and the engine is local: stages
// the job into its job dir, starts the coordinator, follows the job. Returns the exit code.
int SubmitLocally(const SubmitOptions& options, const Configuration& conf, const JobSpec& spec);

// The local engine's client face (client/engine_face.h): submit through SubmitLocally; a local
// job has no cluster, its job dir is all there is to know of it.
std::unique_ptr<EngineClientFace> MakeLocalClientFace();

}  // namespace tony::client
