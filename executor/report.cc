#include "executor/report.h"

#include <fstream>

#include "common/files.h"
#include "common/log.h"
#include "common/strings.h"

namespace tony {
namespace {

constexpr int kReportTimeoutMs = 10'000;
constexpr int kReportAttempts = 3;
// The stderr tail in a failure message: tony.task.error-message-max-depth lines and at most this
// many bytes (a progress bar is one multi-megabyte line of \r-separated redraws).
constexpr size_t kTailMaxBytes = size_t{8} * 1024;
// An environment variable's value; the control plane's messages stay far below gRPC's 4 MB.
constexpr size_t kMaxModelParamsBytes = size_t{1} << 20;

}  // namespace

rpc::ReportResultRequest MakeReport(const TaskIdentity& id, int exit_code,
                                    const std::string& diagnostics) {
  rpc::ReportResultRequest req;
  *req.mutable_task() = id.Ref();
  req.set_exit_code(exit_code);
  // Bytes from the user's stderr: a proto3 string must be UTF-8 or the coordinator drops the
  // whole report.
  req.set_diagnostics(ToValidUtf8(diagnostics));
  return req;
}

rpc::ReportResultRequest MakeReport(const TaskIdentity& id, const JobSpec& spec,
                                    const ProcessesOutcome& outcome,
                                    const UserProcesses& processes) {
  std::string diagnostics = outcome.why;
  if (outcome.failed_local_rank >= 0) {
    const std::string& path = processes.StderrPath(outcome.failed_local_rank);
    auto tail = TailOfFile(path, static_cast<size_t>(spec.error_message_max_depth), kTailMaxBytes);
    if (!tail.empty()) {
      if (!diagnostics.empty()) diagnostics += "\n";
      diagnostics += "last lines of stderr (" + path + "):\n" + Join(tail, "\n");
    }
  }
  rpc::ReportResultRequest req = MakeReport(id, outcome.exit_code, diagnostics);
  req.set_signal(outcome.signal);
  req.set_stopped(outcome.stopped);
  const RoleSpec* role = spec.FindRole(id.role);
  if (role != nullptr && role->preprocess && outcome.exit_code == 0) {
    if (auto params = ModelParamsFrom(JoinPath(id.log_dir, "stdout"))) {
      req.set_model_params(ToValidUtf8(*params));
    }
  }
  return req;
}

std::optional<std::string> ModelParamsFrom(const std::string& stdout_path) {
  static constexpr std::string_view kMarker = "Model parameters: ";
  std::ifstream in(stdout_path);
  for (std::string line; std::getline(in, line);) {
    size_t at = line.find(kMarker);
    if (at == std::string::npos) continue;
    std::string params = line.substr(at + kMarker.size());
    if (!params.empty() && params.back() == '\r') params.pop_back();
    if (params.size() > kMaxModelParamsBytes) {
      TONY_LOG(kWarning) << "the model parameters in " << stdout_path << " are " << params.size()
                         << " bytes; only the first " << kMaxModelParamsBytes
                         << " reach MODEL_PARAMS";
      params.resize(kMaxModelParamsBytes);
    }
    return params;
  }
  return std::nullopt;
}

ResultReporter::ResultReporter(TimeSource& time, CoordinatorCalls& control)
    : control_(control), backoff_(time, [this] { Attempt(); }) {}

void ResultReporter::Send(rpc::ReportResultRequest request, std::function<void(bool)> done) {
  request_ = std::move(request);
  done_ = std::move(done);
  attempt_ = 0;
  Attempt();
}

void ResultReporter::Attempt() {
  ++attempt_;
  control_.ReportResult(request_, kReportTimeoutMs, [this](const Status& s) { OnAnswer(s); });
}

void ResultReporter::OnAnswer(const Status& s) {
  if (s.ok()) {
    done_(true);
    return;
  }
  bool retry = s.code() == StatusCode::kUnavailable || s.code() == StatusCode::kDeadlineExceeded;
  if (retry && attempt_ < kReportAttempts) {
    TONY_LOG(kWarning) << "reporting the result (attempt " << attempt_ << "): " << s.ToString();
    backoff_.Arm(500 * static_cast<int64_t>(attempt_));
    return;
  }
  TONY_LOG(kError) << "could not report the result: " << s.ToString();
  done_(false);
}

}  // namespace tony
