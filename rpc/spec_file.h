// The job spec file (docs/job-spec.md): the JobSpec the client validated at submit, written once
// into the job dir as kJobSpecFileName (and staged on YARN, where every container localizes it
// under that name). The coordinator and the executors read the job's description from it alone:
// tony-final.xml stays the configuration as run, for people and history, and is never parsed
// again to run the job.
//
// Threading: plain functions.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "config/job_spec.h"

namespace tony::rpc {

inline constexpr char kJobSpecFileName[] = "tony-spec.pb";
// The format this build writes and the only one it reads (rpc/job_spec.proto says when it
// changes).
inline constexpr uint32_t kJobSpecFileVersion = 1;
// Where an executor finds the file: set by the engine that starts it.
inline constexpr char kJobSpecPathEnv[] = "TONY_SPEC_PATH";

// The file's bytes for `spec` (a JobSpecFile message of kJobSpecFileVersion).
std::string SerializeJobSpec(const JobSpec& spec);

// The JobSpec in `bytes`; an error, naming `source`, when they are not a JobSpecFile, are of
// another version, or hold a value no JobSpec can have (an unknown enum value).
Result<JobSpec> ParseJobSpec(const std::string& bytes, const std::string& source);

// Writes `spec` to `path` (atomically, mode 0600: it carries the job's environment variables).
Status WriteJobSpecFile(const std::string& path, const JobSpec& spec);

// Reads the file at `path`; an error names the path and why it cannot be used.
Result<JobSpec> ReadJobSpecFile(const std::string& path);

}  // namespace tony::rpc
