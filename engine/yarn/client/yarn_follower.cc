#include "engine/yarn/client/yarn_follower.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "client/follow.h"
#include "client/job_control.h"
#include "client/job_record.h"
#include "client/render.h"
#include "client/staging.h"
#include "client/warnings.h"
#include "common/clock.h"
#include "common/net.h"
#include "engine/yarn/client/yarn_cluster.h"

namespace tony::client {
namespace {

namespace yarn = hadoop::yarn;
namespace pb = hadoop::yarn::pb;
using namespace std::chrono_literals;

// The YARN engine's hooks for FollowJob: the application's report until the AM listens, then
// the coordinator's status; the RM's report again whenever the coordinator does not answer.
class YarnFollower final : public JobFollower {
 public:
  YarnFollower(yarn::ApplicationClient& rm, const pb::ApplicationIdProto& app,
               const history::JobPaths& paths, const std::string& secret, rpc::JobTls tls)
      : rm_(rm),
        app_(app),
        app_id_(yarn::ApplicationIdString(app)),
        paths_(paths),
        secret_(secret),
        tls_(std::move(tls)) {
    last_.set_job_id(app_id_);
  }

  std::string Name() const override { return app_id_; }
  rpc::CoordinatorClient* Coordinator() override { return am_.get(); }

  void OnStatus(const rpc::JobStatus& status) override {
    last_ = status;
    record_warner_.WarnIfFailed(history::WriteJobStatus(paths_, last_),
                                "the local record of " + app_id_ + " is not updated");
    for (const auto& t : last_.tasks()) {
      if (t.log_url().empty() || !announced_.insert(t.container_id()).second) continue;
      std::cout << "tony: " << t.role() << ":" << t.index() << " in " << t.container_id()
                << ", logs " << t.log_url() << "\n";
    }
  }

  void OnCoordinatorError(const Status& error) override {
    am_warner_.WarnIfFailed(error, "the AM of " + app_id_ + " did not answer",
                            "following the application through the ResourceManager");
  }

  void KillWithoutCoordinator(const std::string& reason) override {
    WarnIfFailed(rm_.ForceKillApplication(app_, reason), "could not kill " + app_id_,
                 "it may go on running (tony kill " + app_id_ + ")");
  }

  std::optional<rpc::JobStatus> OnNoAnswer(const rpc::JobStatus& /*last*/) override {
    am_.reset();  // the AM went away or is unreachable: fall back to the RM's report
    int64_t now = SystemClock().MonotonicMs();
    if (now < next_report_ms_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(next_report_ms_ - now));
    }
    next_report_ms_ = SystemClock().MonotonicMs() + 500;
    auto r = rm_.GetApplicationReport(app_);
    if (report_warner_.WarnIfFailed(r.status(), "no report of " + app_id_)) return std::nullopt;
    std::string state(yarn::ApplicationStateName(r->yarn_application_state()));
    if (state != last_state_) {
      std::cout << "tony: application " << app_id_ << " is " << state << "\n" << std::flush;
      last_state_ = state;
    }
    if (r->rpc_port() > 0 && r->rpc_port() <= 65535 && !r->host().empty() && r->host() != "N/A") {
      am_address_ = HostPort{r->host(), static_cast<uint16_t>(r->rpc_port())}.ToString();
    }
    if (yarn::IsTerminal(r->yarn_application_state())) {
      if (auto end = FinalStatusFromLingeringAm()) return end;
      return EndedWithoutCoordinator(*r);
    }
    if (r->yarn_application_state() == pb::RUNNING && !am_address_.empty()) {
      am_ = std::make_unique<rpc::CoordinatorClient>(am_address_, secret_, tls_);
    }
    return std::nullopt;
  }

  rpc::JobStatus Force(const rpc::JobStatus& /*last*/) override {
    WarnIfFailed(rm_.ForceKillApplication(app_, InterruptForcedReason()),
                 "could not kill " + app_id_, "it may go on running (tony kill " + app_id_ + ")");
    last_ =
        RecordJobEnd(paths_, last_, rpc::KILLED, InterruptForcedReason(), UnendedTasks::kStopped,
                     "forced stop: tony did not wait for the task to end");
    return last_;
  }

 private:
  // The AM unregisters as soon as the job ends, then waits for a client to read its final status
  // (tony.am.wait-client-signal-stop-timeout-sec, as TonY's does). A client that missed the AM
  // while it ran (a job shorter than a report poll, a client stopped or slow) asks it once now:
  // only the AM has every task's end, container and log URL.
  std::optional<rpc::JobStatus> FinalStatusFromLingeringAm() {
    if (IsFinished(last_) || am_address_.empty() || asked_after_end_) return std::nullopt;
    asked_after_end_ = true;
    am_.reset();
    rpc::CoordinatorClient am(am_address_, secret_, tls_);
    rpc::GetJobStatusRequest req;
    req.set_after_version(-1);
    req.set_wait_ms(0);
    auto status = am.GetJobStatus(req, kFinalStatusTimeoutMs);
    if (WarnIfFailed(
            status.status(),
            "the AM of " + app_id_ + " at " + am_address_ + " did not give its final status",
            "the ResourceManager's report is all there is of the tasks' ends")) {
      return std::nullopt;
    }
    if (!IsFinished(*status)) return std::nullopt;  // cannot be: the RM says it unregistered
    OnStatus(*status);
    return last_;
  }

  // The application ended without the coordinator telling us: the RM has the last word.
  rpc::JobStatus EndedWithoutCoordinator(const pb::ApplicationReportProto& report) {
    if (IsFinished(last_)) return last_;
    ApplyFinalReport(report, app_id_, &last_);
    last_ = RecordJobEnd(paths_, last_, last_.final_status(), last_.message(), UnendedTasks::kLost,
                         "lost: the application ended without its coordinator reporting it");
    return last_;
  }

  yarn::ApplicationClient& rm_;
  const pb::ApplicationIdProto& app_;
  std::string app_id_;
  const history::JobPaths& paths_;
  std::string secret_;
  rpc::JobTls tls_;
  static constexpr int kFinalStatusTimeoutMs = 5000;
  std::unique_ptr<rpc::CoordinatorClient> am_;
  std::string am_address_;        // host:port the RM last reported for the AM
  bool asked_after_end_ = false;  // FinalStatusFromLingeringAm ran
  rpc::JobStatus last_;
  std::string last_state_;
  Warner record_warner_;  // failed writes of the local record, at every status
  Warner report_warner_;  // the RM's failed reports, every 500 ms while the AM is away
  Warner am_warner_;      // the AM's failed answers, every 500 ms while it is away
  int64_t next_report_ms_ = 0;
  std::set<std::string> announced_;  // containers whose log URL was printed
};

}  // namespace

rpc::JobStatus FollowApplication(yarn::ApplicationClient& rm, const pb::ApplicationIdProto& app,
                                 const history::JobPaths& paths, const std::string& secret,
                                 const rpc::JobTls& tls) {
  YarnFollower follower(rm, app, paths, secret, tls);
  return FollowJob(follower);
}

std::string AwaitEnd(yarn::ApplicationClient& rm, const pb::ApplicationIdProto& app,
                     std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  std::string state = "UNKNOWN";
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = rm.GetApplicationReport(app);
    if (r.ok()) {
      state = yarn::ApplicationStateName(r->yarn_application_state());
      if (yarn::IsTerminal(r->yarn_application_state())) return state;
    }
    std::this_thread::sleep_for(250ms);
  }
  return state;
}

}  // namespace tony::client
