#include "coordinator/am_main.h"

#include <signal.h>

#include <optional>

#include "common/files.h"
#include "common/log.h"
#include "common/strings.h"
#include "engine/engine_name.h"
#include "history/job_dir.h"
#include "rpc/job_secret.h"
#include "rpc/spec_file.h"
#include "runtime/framework.h"

namespace tony {
namespace {

Result<AmInputs> ReadInputs(const history::JobPaths& paths) {
  AmInputs inputs;
  inputs.job_dir = paths.root;
  // The spec the client validated at submit, never tony-final.xml again (docs/job-spec.md).
  TONY_ASSIGN_OR_RETURN(inputs.spec, rpc::ReadJobSpecFile(paths.SpecFile()));
  runtime::MarkServingRoles(inputs.spec);
  return inputs;
}

}  // namespace

AmEngineFactory EngineFactoryFor(const std::string& name) {
  // The engine by its name, as the client's faces get theirs (engine/engine_name.h).
  std::optional<engine::EngineKind> kind =
      name.empty() ? engine::EngineKind::kLocal : engine::ParseEngineName(name);
  if (!kind) return nullptr;
  switch (*kind) {
    case engine::EngineKind::kLocal:
      return SetUpLocalEngine;
    case engine::EngineKind::kYarn:
      return SetUpYarnEngine;
  }
  return nullptr;
}

int RunAm(const std::string& job_dir, const AmEngineFactory& factory, bool keep_staging) {
  SetLogComponent("am");
  history::JobPaths paths(job_dir);
  auto fail = [](const Status& s) {
    TONY_LOG(kError) << s.ToString();
    return 1;
  };
  // Local: from the pipe the client handed it over on; YARN: out of the credentials file the NM
  // wrote, which keeps the AMRMToken for the engine (rpc/job_secret.h).
  auto credentials = rpc::ReadJobCredentials();
  if (!credentials.ok()) return fail(credentials.status());
  auto inputs = ReadInputs(paths);
  if (!inputs.ok()) return fail(inputs.status());
  CoordinatorOptions defaults;
  defaults.job_id = BaseName(paths.root);
  defaults.job_dir = paths.root;
  defaults.secret = std::move(credentials->secret);
  defaults.tls = std::move(credentials->tls);
  defaults.linger_ms = inputs->spec.client_wait_ms;
  defaults.tony_history = history::TonyHistoryOptionsFrom(inputs->spec);
  auto setup = factory(*inputs, std::move(defaults));
  if (!setup.ok()) return fail(setup.status());
  // A client or executor gone mid-call must not kill the coordinator.
  ::signal(SIGPIPE, SIG_IGN);
  int code = 0;
  {
    Coordinator coordinator(std::move(setup->options), std::move(inputs->spec), setup->make_engine);
    code = coordinator.Run();
  }
  if (keep_staging) {
    TONY_LOG(kInfo) << "--debug: the staged job stays in " << paths.Staging();
  } else if (PathExists(paths.Staging())) {
    if (Status removed = RemoveAll(paths.Staging()); !removed.ok()) {
      TONY_LOG(kWarning) << "removing the staged job: " << removed.message();
    }
  }
  return code;
}

}  // namespace tony
