// Job specs built directly in C++ for the runtime tests (no XML, no validation).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "config/job_spec.h"

namespace tony::runtime::testing {

inline RoleSpec Role(const std::string& name, int instances, bool untracked = false,
                     bool sidecar = false) {
  RoleSpec r;
  r.name = name;
  r.instances = instances;
  r.untracked = untracked;
  r.sidecar = sidecar;
  r.command = "true";
  return r;
}

inline JobSpec Spec(const std::string& framework, std::vector<RoleSpec> roles, std::string chief) {
  JobSpec s;
  s.framework = framework;
  s.roles = std::move(roles);
  s.chief_role = std::move(chief);
  return s;
}

}  // namespace tony::runtime::testing
