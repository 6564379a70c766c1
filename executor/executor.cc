#include "executor/executor.h"

#include <signal.h>

#include <cstdlib>
#include <memory>

#include "common/files.h"
#include "common/log.h"
#include "common/net.h"
#include "common/process.h"
#include "common/strings.h"
#include "config/job_spec.h"
#include "config/key_names.h"
#include "executor/control_plane.h"
#include "executor/coordinator_locator.h"
#include "executor/event_loop.h"
#include "executor/localize.h"
#include "executor/report.h"
#include "executor/task_identity.h"
#include "executor/task_run.h"
#include "rpc/client.h"
#include "rpc/spec_file.h"
#include "runtime/framework.h"
#include "runtime/tensorboard.h"

namespace tony {
namespace {

int Fail(const std::string& message) {
  TONY_LOG(kError) << message;
  return 1;
}

// Whether the task's port stays held (bound with SO_REUSEPORT) until its processes start: where
// the framework asks for it (runtime/framework.h), and the shim that lets them bind it is there.
bool HoldTaskPort(const JobSpec& spec, const TaskIdentity& id, TaskRunOptions* options) {
  if (!runtime::HoldsTaskPort(spec, id.role)) return false;
  // Preloaded into every held task's processes, so that any of them can bind the port (a
  // parameter server's plain socket in a tensorflow job too), not only the framework's own
  // listener.
  auto self = SelfExecutable();
  auto shim = self.ok() ? ReusePortShimBeside(*self) : Result<std::string>(self.status());
  if (shim.ok()) {
    options->reuse_port_shim = *shim;
  } else if (runtime::SharesHeldPort(spec, id.role)) {
    TONY_LOG(kWarning) << shim.status().message() << "; the port stays held for the "
                       << "framework's listener, and a process that binds it without "
                       << "SO_REUSEPORT fails";
  } else if (spec.hold_port.value_or(false)) {
    TONY_LOG(kWarning) << shim.status().message() << "; the port stays held as "
                       << keys::kTaskHoldPort << " = true says: the process must bind it with "
                       << "SO_REUSEPORT itself";
  } else {
    TONY_LOG(kWarning) << shim.status().message() << "; the port is released just before the "
                       << "process starts, and open to other users of this host until it binds";
    return false;
  }
  return true;
}

// TonY's chief reserves a second port for a TensorBoard of its own (TB_PORT), held as the
// task's port is; TensorBoard binds it with TB_SERVER_REUSE_PORT=true.
Status ReserveTensorBoardPort(const JobSpec& spec, const TaskIdentity& id, bool hold,
                              TaskRunOptions* options) {
  if (!runtime::GetsTensorBoardPort(spec, id.role, id.index) ||
      runtime::TensorBoardOnTaskPort(spec, id.role)) {
    return Status::Ok();
  }
  auto tb = ReservedPort::Reserve(0, hold);
  if (!tb.ok()) return tb.status().WithContext("reserving TB_PORT");
  options->tensorboard_port = std::move(tb).value();
  return Status::Ok();
}

// A job whose AM may get another attempt (docs/am-restart.md): the task looks for it in the
// address file the AM writes on HDFS. Null without a window, or without a staging dir to look in
// (the task then tries only the address it has, for the window). Sets options->locator.
std::unique_ptr<WebHdfsCoordinatorLocator> MakeLocator(const JobSpec& spec, ExecutorLoop& loop,
                                                       TaskRunOptions* options) {
  if (spec.am_reconnect_window_ms <= 0) return nullptr;
  auto source = AmAddressSourceFromEnvironment();
  if (!source.ok()) {
    TONY_LOG(kWarning) << source.status().message()
                       << "; a new AM attempt will not be found at another address";
    return nullptr;
  }
  auto locator = std::make_unique<WebHdfsCoordinatorLocator>(
      loop, [source = *source] { return ReadCoordinatorAddress(source); });
  options->locator = locator.get();
  return locator;
}

}  // namespace

int RunExecutor() {
  SetLogComponent("executor");
  // Before any thread exists, so that every thread (gRPC's included) leaves these to the loop's
  // signalfd; Spawn gives the user processes default dispositions and an empty mask again.
  BlockLoopSignals();
  // Whatever the user's processes leave behind, even outside their process group and session,
  // becomes this process's child, to be killed when the task ends (KillDescendants).
  Status subreaper = BecomeChildSubreaper();
  if (!subreaper.ok()) TONY_LOG(kWarning) << subreaper.ToString();
  auto id_or = ReadIdentity();
  if (!id_or.ok()) return Fail(id_or.status().message());
  const TaskIdentity id = std::move(id_or).value();

  TaskRun* run = nullptr;  // set once the task can register; signals before that wait in the fd
  auto loop_or = EventLoop::Create([&run](int sig) {
    if (run != nullptr) run->OnSignal(sig);
  });
  if (!loop_or.ok()) return Fail(loop_or.status().message());
  EventLoop& loop = **loop_or;
  rpc::CoordinatorClient client(id.am_address, id.secret, id.tls);
  ControlPlane control(client, loop);
  ResultReporter reporter(loop, control);
  OsProcessLauncher launcher;
  // Reports a failure of the job's own making (its configuration, its archives) and exits 1.
  auto report_and_fail = [&](const std::string& diagnostics, const std::string& message) {
    TONY_LOG(kError) << message;
    reporter.Send(MakeReport(id, 1, diagnostics), [&loop](bool) { loop.Quit(1); });
    std::_Exit(loop.Run());
  };

  // The spec the client validated at submit (docs/job-spec.md), never tony-final.xml.
  auto spec_or = rpc::ReadJobSpecFile(id.spec_path);
  if (!spec_or.ok()) {
    report_and_fail("invalid job spec: " + spec_or.status().message(), spec_or.status().message());
  }
  const JobSpec spec = std::move(spec_or).value();
  const RoleSpec* role = spec.FindRole(id.role);
  if (role == nullptr) return Fail("the job has no role " + id.role);
  TONY_LOG(kInfo) << "task " << id.Name() << " attempt " << id.attempt << " of job " << id.job_id;
  TONY_LOG(kInfo) << DescribeSelf();

  Status s = Localize(id.log_dir);
  if (s.ok()) s = runtime::PrepareTask(spec, id.role);
  if (!s.ok()) report_and_fail("localizing: " + s.message(), s.message());
  MakeEntryPointExecutable(role->command);
  TaskRunOptions options;
  const bool hold = HoldTaskPort(spec, id, &options);
  auto port = ReservedPort::Reserve(0, hold);
  if (!port.ok()) return Fail(port.status().message());
  if (Status tb = ReserveTensorBoardPort(spec, id, hold, &options); !tb.ok()) {
    return Fail(tb.message());
  }
  options.registry_timeout_ms = spec.registry_timeout_ms;
  std::unique_ptr<WebHdfsCoordinatorLocator> locator = MakeLocator(spec, loop, &options);
  TaskRun task(loop, control, launcher, spec, *role, id, std::move(port).value(),
               std::move(options));
  run = &task;
  task.Begin();
  // Everything is reported and the user process is gone: exit now rather than wait for calls in
  // flight (a heartbeat) and gRPC's teardown (seconds while the coordinator winds down).
  std::_Exit(loop.Run());
}

}  // namespace tony
