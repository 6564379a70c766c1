// `tony am`: the one start-up of a job's coordinator (TonY's ApplicationMaster), whatever the
// engine. It reads the job directory once (the secret, the job spec file the client wrote at
// submit: rpc/spec_file.h), asks the engine's factory for what only that engine knows (where to
// listen, which executable the executors run, how to build the engine), and runs the Coordinator.
//
// Threading: called once on the process's main thread; RunAm returns when the job has ended.
#pragma once

#include <asio.hpp>
#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "config/job_spec.h"
#include "coordinator/coordinator.h"
#include "engine/engine.h"

namespace tony {

// What the start-up read from the job directory, once, for every engine.
struct AmInputs {
  std::string job_dir;
  JobSpec spec;
};

struct EngineSetup {
  CoordinatorOptions options;  // the defaults, with what this engine decides
  EngineFactory make_engine;   // called once by the Coordinator, with its loop
};

// The engine's half of the start-up. An error when its environment lacks what it needs (on YARN:
// the AMRMToken, the scheduler's address, the staged files' listing).
using AmEngineFactory =
    std::function<Result<EngineSetup>(const AmInputs& inputs, CoordinatorOptions defaults)>;

// Processes on this machine (engine/local).
Result<EngineSetup> SetUpLocalEngine(const AmInputs& inputs, CoordinatorOptions defaults);
// Inside a YARN AM container (engine/yarn); `inputs.job_dir` is the container's working dir.
Result<EngineSetup> SetUpYarnEngine(const AmInputs& inputs, CoordinatorOptions defaults);

// The factory for `--engine <name>` ("" is local), or nullptr for an unknown name.
AmEngineFactory EngineFactoryFor(const std::string& name);

// Runs the job in `job_dir` to its end with `factory`'s engine. Returns the process's exit code:
// 0 when the job SUCCEEDED, 1 otherwise (the reason is logged, and in status.json once the
// coordinator has started). Once it has ended, the job dir's staging/ (copies of the job's
// inputs, which no task needs any more) is removed, unless `keep_staging` (tony submit --debug).
int RunAm(const std::string& job_dir, const AmEngineFactory& factory, bool keep_staging = false);

}  // namespace tony
