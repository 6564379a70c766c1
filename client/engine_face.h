// What the client does that only the engine a job runs on knows: how `tony submit` stages,
// starts and follows the job, and what the engine's cluster says of a job that `tony status`,
// `tony kill` and `tony logs` name. Each engine's client face implements it
// (engine/local/client/, engine/yarn/client/); `tony` gets every face from one factory
// (engine/factory.h) and hands them to the client, which is engine-neutral
// (docs/architecture.md §2).
// Thread-safety: the faces are const; call them from the command's thread.
#pragma once

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "client/submit.h"
#include "common/status.h"
#include "config/configuration.h"
#include "config/job_spec.h"
#include "engine/engine_name.h"
#include "hadoop/hdfs/webhdfs.h"
#include "rpc/tony.pb.h"

namespace tony::client {

// One of the user's jobs as the engine's cluster lists it (`tony status` without an id).
struct ClusterJob {
  std::string id, name, user, state, message;
  int64_t start_ms = 0, finish_ms = 0;
  bool ended = false;
};

class EngineClientFace {
 public:
  virtual ~EngineClientFace() = default;

  virtual engine::EngineKind Kind() const = 0;
  // Whether the engine's containers fetch a remote resource (a scheme:// entry of
  // tony.*.resources: YARN's NodeManagers localize it) themselves; where they do not, the client
  // refuses one (client/resources.h).
  virtual bool FetchesRemoteResources() const = 0;
  // `tony submit`, once the inputs and the job spec are valid: stages the job, starts its
  // coordinator and follows it. Returns the exit code (client/submit.h).
  virtual int Submit(const SubmitOptions& options, const Configuration& conf,
                     const JobSpec& spec) const = 0;

  // Whether this engine reads the job file at `uri` (--conf_file hdfs://...), and its text.
  virtual bool ReadsJobFile(const std::string& /*uri*/) const { return false; }
  virtual Result<std::string> ReadJobFile(const std::string& uri,
                                          const Configuration& /*login*/) const {
    return NotFound("no engine reads the job file " + uri);
  }

  // Whether `job_id` names a job of this engine's cluster (YARN: application_...), which then
  // decides the job's status, the job dir being a cache; ValidJobId: and is well formed, so that
  // the cluster can be asked about it without a local record.
  virtual bool OwnsJobId(const std::string& /*job_id*/) const { return false; }
  virtual bool ValidJobId(const std::string& /*job_id*/) const { return false; }
  // Why the cluster cannot be asked about `job_id` (no cluster configuration here), appended to
  // the error of a job with no local record; OK when it can.
  virtual Status CanAskCluster(const std::string& /*job_id*/) const { return Status::Ok(); }
  // The job as the cluster sees it; `last` is the local record (empty without one).
  virtual Result<rpc::JobStatus> ClusterStatus(const std::string& job_id,
                                               const rpc::JobStatus& /*last*/) const {
    return NotFound("no cluster knows job " + job_id);
  }
  // The user's jobs the cluster knows; empty when no cluster is configured.
  virtual Result<std::vector<ClusterJob>> ListClusterJobs() const {
    return std::vector<ClusterJob>();
  }
  // `tony kill` of a job of this engine's cluster. Returns the exit code.
  virtual int KillOnCluster(const std::string& job_id) const {
    std::cerr << "tony: error: no cluster knows job " << job_id << "\n";
    return kExitBadInput;
  }
  // Where the coordinator's log of a cluster job is (candidates, best first), and how to read
  // that and the tasks' log URLs (TLS trust, SPNEGO).
  virtual Result<std::vector<std::string>> AmLogUrls(const std::string& job_id) const {
    return NotFound("no cluster knows job " + job_id);
  }
  virtual Result<hadoop::hdfs::HttpGetOptions> LogWebAccess(const std::string& job_id,
                                                            bool /*https*/) const {
    return NotFound("no cluster knows job " + job_id);
  }
};

// Every engine's client face (engine/factory.h makes them).
class EngineFaces {
 public:
  EngineFaces() = default;
  explicit EngineFaces(std::vector<std::unique_ptr<EngineClientFace>> faces)
      : faces_(std::move(faces)) {}

  // The face of `kind`; nullptr when this build has none.
  const EngineClientFace* Find(engine::EngineKind kind) const {
    for (const auto& f : faces_) {
      if (f->Kind() == kind) return f.get();
    }
    return nullptr;
  }
  // The face whose cluster knows `job_id`; nullptr for a job only its job dir knows (local).
  const EngineClientFace* ClusterOf(const std::string& job_id) const {
    for (const auto& f : faces_) {
      if (f->OwnsJobId(job_id)) return f.get();
    }
    return nullptr;
  }
  // The face whose engine reads the job file `uri` itself (ReadsJobFile: --conf_file hdfs://...
  // on YARN); nullptr for a file the client reads.
  const EngineClientFace* JobFileReader(const std::string& uri) const {
    for (const auto& f : faces_) {
      if (f->ReadsJobFile(uri)) return f.get();
    }
    return nullptr;
  }
  const std::vector<std::unique_ptr<EngineClientFace>>& All() const { return faces_; }

 private:
  std::vector<std::unique_ptr<EngineClientFace>> faces_;
};

}  // namespace tony::client
