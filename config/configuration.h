// Configuration: Hadoop-style layered key/value configuration with TonY's precedence rules.
//
// Layers, lowest first (TonY's order, docs/tony-compat.md §1.3):
//   1. built-in defaults (the key registry, config/keys.h)
//   2. the user's job file (--conf_file)
//   3. the site file $TONY_CONF_DIR/tony-site.xml (admin policy: overrides the job file unless
//      the job file marked the key <final>true</final>)
//   4. --conf k=v overrides (always win; for the multi-value keys tony.containers.envs,
//      tony.execution.envs, tony.containers.resources a --conf value is appended to the list)
// A <final>true</final> property in a file layer cannot be overridden by a later *file* layer.
//
// Every value remembers where it came from, so errors can name the file.
// Thread-safety: a plain value; no internal locking.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"

namespace tony {

// The source of a value that no file or flag set: the key registry's default.
inline constexpr char kDefaultsSource[] = "built-in defaults";

struct ConfigValue {
  std::string value;
  std::string source;  // kDefaultsSource, a file path, or "--conf"
  bool final = false;
  // True when only the key registry set it (no file, no --conf).
  bool FromDefaults() const { return source == kDefaultsSource; }
};

class Configuration {
 public:
  // A configuration holding only the built-in defaults from the key registry.
  static Configuration WithDefaults();

  // Parses a Hadoop configuration XML file (<configuration><property><name/><value/>
  // <final/></property>...). Errors name the file, and the line when the parser knows it.
  Status AddFile(const std::string& path);
  // Same, from a string; `source` names it in errors.
  Status AddXml(const std::string& xml, const std::string& source);
  // A --conf override: "key=value". Errors when there is no '=' or the key is empty.
  Status AddOverride(const std::string& key_equals_value);
  // Sets a value directly (used by the client for values derived from flags, e.g.
  // tony.containers.command from --executes). Multi-value keys are appended, as for --conf.
  void Set(const std::string& key, const std::string& value, const std::string& source);

  // The value with ${name} references expanded as Hadoop's get() does: a name is another key of
  // this configuration, or user.name ($USER); undefined references stay as written. Find() and
  // entries() give the raw values.
  std::optional<std::string> Get(const std::string& key) const;
  std::string GetOr(const std::string& key, const std::string& fallback) const;
  const ConfigValue* Find(const std::string& key) const;
  const std::map<std::string, ConfigValue>& entries() const { return entries_; }

  // Hadoop XML of every entry, sorted by key, with a <source> element per property as Hadoop
  // writes it. Parsed back by AddXml/AddFile.
  std::string ToXml() const;

  // What the files added so far contained that was skipped (e.g. a <property> without a
  // <name>), each naming the file and line; for the client to print.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void Put(const std::string& key, const std::string& value, const std::string& source, bool final,
           bool from_file);
  std::map<std::string, ConfigValue> entries_;
  // Keys set by AddOverride/Set: a file layer added later does not replace them (Hadoop's
  // overlay), so --conf wins whatever order the layers are added in.
  std::set<std::string> overridden_;
  std::vector<std::string> warnings_;
};

// True for the keys whose --conf values append to the list (docs/tony-compat.md §2.9).
bool IsMultiValueKey(const std::string& key);

}  // namespace tony
