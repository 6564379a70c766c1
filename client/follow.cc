#include "client/follow.h"

#include <unistd.h>

#include <iostream>

#include "client/render.h"
#include "client/staging.h"

namespace tony::client {
rpc::JobStatus FollowJob(JobFollower& job) {
  StatusPrinter printer(::isatty(STDOUT_FILENO) != 0);
  rpc::JobStatus last;
  int64_t version = -1;
  bool kill_sent = false;
  while (true) {
    if (Interrupts() > 0 && !kill_sent) {
      std::cerr << InterruptNotice(job.Name()) << "\n";
      rpc::KillJobRequest req;
      req.set_reason(InterruptKillReason());
      rpc::CoordinatorClient* coordinator = job.Coordinator();
      if (coordinator == nullptr || !coordinator->KillJob(req, 5000).ok()) {
        job.KillWithoutCoordinator(req.reason());
      }
      kill_sent = true;
    }
    // Ends the coordinator did not tell are shown like any other: every task's last state.
    if (Interrupts() > 1) {
      rpc::JobStatus forced = job.Force(last);
      printer.Show(forced);
      return forced;
    }
    if (rpc::CoordinatorClient* coordinator = job.Coordinator()) {
      rpc::GetJobStatusRequest req;
      req.set_after_version(version);
      req.set_wait_ms(kill_sent ? 200 : 1000);
      auto status = coordinator->GetJobStatus(req, job.StatusTimeoutMs(req.wait_ms()));
      if (status.ok()) {
        last = *status;
        version = last.version();
        job.OnStatus(last);
        printer.Show(last);
        if (IsFinished(last)) return last;
        continue;
      }
      job.OnCoordinatorError(status.status());
    }
    if (auto end = job.OnNoAnswer(last)) {
      printer.Show(*end);
      return *end;
    }
  }
}

}  // namespace tony::client
