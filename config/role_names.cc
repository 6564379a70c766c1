#include "config/role_names.h"

#include <algorithm>
#include <limits>

#include "common/strings.h"

namespace tony {
namespace {

bool IsWellKnown(const std::string& name) {
  const auto& known = WellKnownRoles();
  return std::find(known.begin(), known.end(), name) != known.end();
}

// Edits that still read as a typo of a name of this length: one for short names (ps, am), two
// otherwise (a transposition such as wroker costs two).
size_t TypoDistance(const std::string& name) { return name.size() <= 3 ? 1 : 2; }

}  // namespace

const std::vector<std::string>& WellKnownRoles() {
  static const std::vector<std::string> kRoles = {"chief",       "worker",   "ps",     "evaluator",
                                                  "tensorboard", "driver",   "server", "scheduler",
                                                  "master",      "notebook", "am"};
  return kRoles;
}

std::string ClosestName(const std::string& name, const std::vector<std::string>& names) {
  std::string best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const std::string& other : names) {
    size_t d = EditDistance(name, other);
    if (d <= TypoDistance(name) && d < best_distance) {
      best_distance = d;
      best = other;
    }
  }
  return best;
}

std::vector<std::string> RoleNameWarnings(const JobSpec& spec) {
  std::vector<std::string> warnings;
  for (const RoleSpec& role : spec.roles) {
    if (IsWellKnown(role.name)) continue;
    std::string best;
    size_t best_distance = std::numeric_limits<size_t>::max();
    auto consider = [&](const std::string& other) {
      if (other == role.name) return;
      size_t d = EditDistance(role.name, other);
      if (d <= TypoDistance(role.name) && d < best_distance) {
        best_distance = d;
        best = other;
      }
    };
    for (const auto& known : WellKnownRoles()) consider(known);
    for (const RoleSpec& other : spec.roles) {
      // Between two unusual names, warn once: about the later one.
      if (IsWellKnown(other.name) || other.name < role.name) consider(other.name);
    }
    if (best.empty()) continue;
    warnings.push_back("tony." + role.name + ".instances makes a role of its own, '" + role.name +
                       "' (" + std::to_string(role.instances) + " task(s)); did you mean tony." +
                       best + ".instances?");
  }
  return warnings;
}

std::vector<std::string> UntrackedRoleWarnings(const Configuration& conf, const JobSpec& spec) {
  constexpr char kKey[] = "tony.application.untracked.jobtypes";
  std::vector<std::string> warnings;
  const ConfigValue* value = conf.Find(kKey);
  if (value == nullptr || value->FromDefaults()) return warnings;
  for (const std::string& name : SplitTrimmed(value->value, ',')) {
    // "ps" is TonY's default, carried into the value when a framework appends its own roles.
    if (name.empty() || name == "ps" || spec.FindRole(name) != nullptr) continue;
    std::string warning = std::string(kKey) + " names '" + name +
                          "', which is no role of this job (" + value->source +
                          "): it makes no task untracked";
    std::vector<std::string> roles;
    for (const RoleSpec& role : spec.roles) roles.push_back(role.name);
    std::string best = ClosestName(name, roles);
    if (!best.empty()) warning += "; did you mean '" + best + "'?";
    warnings.push_back(warning);
  }
  return warnings;
}

}  // namespace tony
