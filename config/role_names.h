// Warnings for role names that look like typos. A role is any tony.<role>.instances, so
// `--conf tony.workers.instances=2` next to tony.worker.instances silently adds a second role and
// doubles the job; tony keeps TonY's rule (any [a-z]+ name is a role) but says so when a new
// role's name is close to a well-known role or to another role of the same job.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "config/configuration.h"
#include "config/job_spec.h"

namespace tony {

// Role names with a meaning in TonY or tony (frameworks, sidecars, the Horovod driver).
const std::vector<std::string>& WellKnownRoles();

// The name in `names` closest to `name` when it is within a typo of it (one edit for names of up
// to three letters, two otherwise); empty when none is.
std::string ClosestName(const std::string& name, const std::vector<std::string>& names);

// One "did you mean" warning per role of `spec` that is not well known and whose name is within
// a typo of a well-known role or of another role of the job.
std::vector<std::string> RoleNameWarnings(const JobSpec& spec);

// One warning per name in a configured (not built-in) tony.application.untracked.jobtypes that
// is no role of the job: it makes nothing untracked. Names the key and the role, with the
// closest role of the job when one is a typo away.
std::vector<std::string> UntrackedRoleWarnings(const Configuration& conf, const JobSpec& spec);

}  // namespace tony
