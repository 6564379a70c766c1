#include "config/configuration.h"

#include <algorithm>
#include <cstdlib>

#include "common/files.h"
#include "common/strings.h"
#include "config/keys.h"
#include "config/xml.h"

namespace tony {
namespace {

constexpr char kOverrideSource[] = "--conf";
// Hadoop's Configuration.MAX_SUBST: bounds ${...} expansion, so a value referring to itself
// stays literal instead of looping.
constexpr int kMaxSubstitutions = 20;
// Each round replaces every reference, so a value naming itself several times would grow
// exponentially over the rounds ("${a}${a}" in a: 2^20 copies); past this size references stay
// literal (or past the value's own size, if larger).
constexpr size_t kMaxExpandedBytes = size_t{64} * 1024;
// A job file is a few kB; past this it is a mistake (a dataset, /dev/zero), refused before it
// is read into memory.
constexpr size_t kMaxConfigFileBytes = size_t{16} * 1024 * 1024;

// The value of a ${name} reference, or nullopt when nothing defines it. Hadoop checks system
// properties first; of those only user.name means anything outside a JVM.
std::optional<std::string> LookupVariable(const std::map<std::string, ConfigValue>& entries,
                                          const std::string& name) {
  if (name == "user.name") {
    if (const char* user = std::getenv("USER"); user != nullptr && *user != '\0') return user;
  }
  auto it = entries.find(name);
  if (it != entries.end()) return it->second.value;
  return std::nullopt;
}

// Expands ${name} references as Hadoop's get() does; references to undefined names stay as
// written.
std::string Expand(const std::map<std::string, ConfigValue>& entries, std::string value) {
  const size_t limit = std::max(kMaxExpandedBytes, value.size());
  for (int round = 0; round < kMaxSubstitutions; ++round) {
    bool changed = false;
    std::string out;
    size_t pos = 0;
    while (pos < value.size()) {
      size_t start = value.find("${", pos);
      size_t end = start == std::string::npos ? start : value.find('}', start + 2);
      if (start == std::string::npos || end == std::string::npos) break;
      std::string name = value.substr(start + 2, end - start - 2);
      out.append(value, pos, start - pos);
      std::optional<std::string> replacement;
      if (!name.empty() && name.find_first_of("$ ") == std::string::npos) {
        replacement = LookupVariable(entries, name);
      }
      if (replacement && out.size() + replacement->size() + value.size() - end <= limit) {
        out += *replacement;
        changed = true;
      } else {
        out.append(value, start, end + 1 - start);
      }
      pos = end + 1;
    }
    out.append(value, std::min(pos, value.size()), std::string::npos);
    value = std::move(out);
    if (!changed) break;
  }
  return value;
}

}  // namespace

bool IsMultiValueKey(const std::string& key) {
  return key == "tony.containers.envs" || key == "tony.execution.envs" ||
         key == "tony.containers.resources";
}

Configuration Configuration::WithDefaults() {
  Configuration conf;
  for (const KeySpec& spec : AllKeys()) {
    if (spec.default_value.empty() || spec.name.find('<') != std::string_view::npos) continue;
    conf.entries_[std::string(spec.name)] =
        ConfigValue{std::string(spec.default_value), kDefaultsSource, false};
  }
  return conf;
}

Status Configuration::AddFile(const std::string& path) {
  Result<std::string> xml = ReadFileBounded(path, kMaxConfigFileBytes);
  if (!xml.ok()) return xml.status().WithContext("reading configuration " + path);
  return AddXml(*xml, path);
}

Status Configuration::AddXml(const std::string& xml, const std::string& source) {
  auto props = config_internal::ParseHadoopXml(xml, source);
  if (!props.ok()) return props.status();
  for (const config_internal::XmlProperty& p : *props) {
    if (p.name.empty()) {
      warnings_.push_back(source + ":" + std::to_string(p.line) +
                          ": <property> without a <name> skipped (as Hadoop does)");
      continue;
    }
    // A <source> written by ToXml keeps pointing at the file the user actually wrote.
    Put(p.name, p.value, p.source.empty() ? source : p.source, p.final, /*from_file=*/true);
  }
  return Status::Ok();
}

Status Configuration::AddOverride(const std::string& key_equals_value) {
  size_t eq = key_equals_value.find('=');
  if (eq == std::string::npos) {
    return InvalidArgument("--conf " + key_equals_value + ": expected key=value");
  }
  std::string key(Trim(std::string_view(key_equals_value).substr(0, eq)));
  if (key.empty()) {
    return InvalidArgument("--conf " + key_equals_value + ": empty key; expected key=value");
  }
  std::string value(Trim(std::string_view(key_equals_value).substr(eq + 1)));
  Set(key, value, kOverrideSource);
  return Status::Ok();
}

void Configuration::Set(const std::string& key, const std::string& value,
                        const std::string& source) {
  Put(key, value, source, /*final=*/false, /*from_file=*/false);
}

void Configuration::Put(const std::string& key, const std::string& value, const std::string& source,
                        bool final, bool from_file) {
  auto it = entries_.find(key);
  if (from_file) {
    if (it != entries_.end() && (it->second.final || overridden_.count(key) > 0)) return;
    entries_[key] = ConfigValue{value, source, final};
    return;
  }
  overridden_.insert(key);
  if (IsMultiValueKey(key) && it != entries_.end() && !Trim(it->second.value).empty()) {
    if (Trim(value).empty()) return;
    it->second.value += "," + value;
    // The list now mixes layers; the newest source is the one to check first.
    it->second.source = source;
    return;
  }
  bool was_final = it != entries_.end() && it->second.final;
  entries_[key] = ConfigValue{value, source, was_final};
}

std::optional<std::string> Configuration::Get(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  if (it->second.value.find("${") == std::string::npos) return it->second.value;
  return Expand(entries_, it->second.value);
}

std::string Configuration::GetOr(const std::string& key, const std::string& fallback) const {
  std::optional<std::string> v = Get(key);
  return v ? *v : fallback;
}

const ConfigValue* Configuration::Find(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

std::string Configuration::ToXml() const {
  std::vector<config_internal::XmlProperty> props;
  props.reserve(entries_.size());
  for (const auto& [key, v] : entries_) {
    props.push_back({key, v.value, v.final, v.source, 0});
  }
  return config_internal::WriteHadoopXml(props);
}

}  // namespace tony
