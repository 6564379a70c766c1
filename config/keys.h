// The registry of every configuration key tony knows: name, type, default, unit and doc.
//
// Per-role keys are registered once as templates with "<role>" in place of the role name
// (e.g. "tony.<role>.instances"); a role is any lowercase name [a-z]+ for which
// tony.<role>.instances is set (docs/tony-compat.md §1.5). Group keys use "<group>" and
// dependency keys "<role>" and "<group>" likewise.
//
// Defaults are TonY's tony-default.xml values (the effective ones, §2) except where README's
// "Differences from TonY" says otherwise (fail-on-worker-failure-enabled defaults to true).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/key_names.h"

namespace tony {

enum class KeyType { kString, kInt, kLong, kBool, kMemory, kList, kEnum, kDurationMs };

struct KeySpec {
  std::string_view name;  // may contain <role> / <group>
  KeyType type;
  std::string_view default_value;  // "" when unset by default
  std::string_view unit;           // "ms", "MB", "s", "" ...
  std::string_view doc;
  std::vector<std::string_view> allowed;  // for kEnum (compared case-insensitively)
  // Empty: tony applies the key as TonY does (docs/keys.md). Otherwise why tony does not; a
  // value other than the default set by the user gets a warning with this reason.
  std::string_view unsupported = {};
};

const std::vector<KeySpec>& AllKeys();

// tony.application.framework's values, lower case: the one list of frameworks (runtime/ has the
// runtime of each, and tests that every name here has one).
const std::vector<std::string_view>& FrameworkNames();

// The spec for a concrete key ("tony.worker.memory" matches "tony.<role>.memory").
const KeySpec* FindKeySpec(std::string_view key);

// For an unknown key, the closest known key (concrete form, with the same role filled in when the
// template has one), or nullopt if nothing is close.
std::optional<std::string> ClosestKnownKey(std::string_view key);

// "What is accepted" for a key type, for error messages ("a memory size such as 2g, 512m or
// 4096 (MB)").
std::string DescribeAccepted(const KeySpec& spec);
// The accepted forms of a memory size (ParseMemoryMb), for errors.
inline constexpr char kMemorySizeForms[] =
    "a memory size: a whole number with an optional unit k, m, g or t (2g, 512m; no unit means "
    "MB)";

// True for the second segment of tony's own key namespaces (application, containers, task,
// docker, history, ...), which can never name a role.
bool IsReservedNamespace(std::string_view segment);
// True when `name` can be a role (job type): [a-z]+, not "am" and not a reserved namespace.
bool IsRoleName(std::string_view name);

}  // namespace tony
