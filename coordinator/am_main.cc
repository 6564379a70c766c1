#include "coordinator/am_main.h"

#include <signal.h>

#include "common/files.h"
#include "common/log.h"
#include "common/strings.h"
#include "history/job_dir.h"

namespace tony {
namespace {

Result<AmInputs> ReadInputs(const history::JobPaths& paths) {
  AmInputs inputs;
  inputs.job_dir = paths.root;
  TONY_RETURN_IF_ERROR(inputs.conf.AddFile(paths.FinalConf()));
  TONY_ASSIGN_OR_RETURN(inputs.spec, BuildJobSpec(inputs.conf));
  return inputs;
}

}  // namespace

EngineFactory EngineFactoryFor(const std::string& name) {
  if (name.empty() || name == "local") return SetUpLocalEngine;
  if (name == "yarn") return SetUpYarnEngine;
  return nullptr;
}

int RunAm(const std::string& job_dir, const EngineFactory& factory) {
  SetLogComponent("am");
  history::JobPaths paths(job_dir);
  auto fail = [](const Status& s) {
    TONY_LOG(kError) << s.ToString();
    return 1;
  };
  auto secret = ReadFile(paths.Secret());
  if (!secret.ok()) return fail(secret.status());
  auto inputs = ReadInputs(paths);
  if (!inputs.ok()) return fail(inputs.status());
  CoordinatorOptions defaults;
  defaults.job_id = BaseName(paths.root);
  defaults.job_dir = paths.root;
  defaults.secret = std::string(Trim(*secret));
  auto setup = factory(*inputs, std::move(defaults));
  if (!setup.ok()) return fail(setup.status());
  // A client or executor gone mid-call must not kill the coordinator.
  ::signal(SIGPIPE, SIG_IGN);
  Coordinator coordinator(std::move(setup->options), std::move(inputs->spec),
                          std::move(setup->make_engine));
  return coordinator.Run();
}

}  // namespace tony
