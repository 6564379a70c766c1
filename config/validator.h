// Validator: typed reads of a Configuration that collect every error instead of stopping at the
// first, so one `tony submit` shows the user all that is wrong with their config.
//
// Each read returns a usable value even when the configured one is bad (the registry default,
// else the lowest accepted value), so BuildJobSpec can carry on and report more.
// Internal to config/. Thread-safety: a plain value over a borrowed Configuration.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "config/configuration.h"

namespace tony::config_internal {

class Validator {
 public:
  explicit Validator(const Configuration& conf) : conf_(conf) {}

  // Checks the type of every entry whose key the registry knows (ints, bools, memory, enums).
  void CheckAllTypes();

  // `key = "value" (from source)`, the start of every message about one key.
  std::string Describe(const std::string& key) const;
  void AddError(std::string message);
  bool ok() const { return errors_.empty(); }
  // True when the configuration sets `key` (not only the registry default).
  bool IsSet(const std::string& key) const;
  // OK, or InvalidArgument with every error, one a line.
  Status ToStatus() const;

  // Values: the configured one (with ${...} expanded), else the registry default. Numbers below
  // `min` are errors that say what is accepted.
  std::string String(const std::string& key) const;
  std::vector<std::string> List(const std::string& key) const;
  bool Bool(const std::string& key);
  int Int(const std::string& key, int64_t min = INT32_MIN);
  int64_t Long(const std::string& key, int64_t min = INT64_MIN);
  int64_t Memory(const std::string& key, int64_t min_mb);
  // A memory cap where a negative integer means "no cap" (returns -1).
  int64_t MemoryCap(const std::string& key);
  // The value if it is one of the allowed ones (case-insensitive), else the default.
  std::string Enum(const std::string& key);

 private:
  struct Field {
    std::string value;
    std::string source;
  };
  Field Lookup(const std::string& key) const;
  std::string DefaultOf(const std::string& key) const;
  // Records "<Describe(key)>: expected <accepted>" once per key.
  void KeyError(const std::string& key, const std::string& accepted);
  void CheckType(const std::string& key);

  const Configuration& conf_;
  std::vector<std::string> errors_;
  std::set<std::string> keys_with_errors_;
};

// See tony::UnsupportedKeyWarnings.
std::vector<std::string> UnsupportedKeyWarnings(const Configuration& conf);
// See tony::UnknownKeyWarnings; `declared_roles` are the names with a tony.<role>.instances key.
std::vector<std::string> UnknownKeyWarnings(const Configuration& conf,
                                            const std::vector<std::string>& declared_roles);

}  // namespace tony::config_internal
