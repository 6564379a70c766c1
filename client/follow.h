// FollowJob: the one loop `tony submit` follows a job with, whatever the engine: long-polls the
// coordinator's status (GetJobStatus, rpc/tony.proto) and shows it; on the first interrupt asks
// the coordinator to kill the job, on the second gives up on it. What differs between engines
// (how to find the coordinator, what to do when it does not answer, how to force an end) is a
// JobFollower's hooks.
//
// Threading: runs on the caller's thread and blocks until the job has ended.
#pragma once

#include <optional>
#include <string>

#include "rpc/client.h"
#include "rpc/tony.pb.h"

namespace tony::client {

class JobFollower {
 public:
  virtual ~JobFollower() = default;
  // What the interrupt message names ("job <dir>", "<application id>").
  virtual std::string Name() const = 0;
  // The coordinator to ask, or nullptr while none is known (YARN: before the AM runs).
  virtual rpc::CoordinatorClient* Coordinator() = 0;
  // The deadline of one status long-poll that may wait `wait_ms` at the coordinator.
  virtual int StatusTimeoutMs(int /*wait_ms*/) const { return 6000; }
  // Every status the coordinator answered, before it is shown.
  virtual void OnStatus(const rpc::JobStatus& /*status*/) {}
  // The kill request could not go through the coordinator (none, or it did not answer).
  virtual void KillWithoutCoordinator(const std::string& /*reason*/) {}
  // The coordinator was asked and answered with an error (unreachable, refused, timed out);
  // OnNoAnswer follows. Where the engine has another way to follow the job, this is the one place
  // the reason is seen, so a follower that falls back says it.
  virtual void OnCoordinatorError(const Status& /*error*/) {}
  // The coordinator did not answer (or none is known yet). Returns the job's end when the engine
  // knows it is over; nullopt to keep following (the hook waits a little before returning).
  virtual std::optional<rpc::JobStatus> OnNoAnswer(const rpc::JobStatus& last) = 0;
  // The second interrupt: end the job without the coordinator; returns the status to report.
  virtual rpc::JobStatus Force(const rpc::JobStatus& last) = 0;
};

// Follows the job until it ends; returns its final status.
rpc::JobStatus FollowJob(JobFollower& job);

}  // namespace tony::client
