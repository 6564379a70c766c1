#include "config/validator.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "common/strings.h"
#include "config/job_spec.h"
#include "config/keys.h"

namespace tony::config_internal {
namespace {

constexpr char kMaxTotalMemoryKey[] = "tony.task.max-total-memory";

bool FitsInt(int64_t v) {
  return v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max();
}

bool EnumAllows(const KeySpec& spec, std::string_view value) {
  std::string lower = ToLower(Trim(value));
  return std::any_of(spec.allowed.begin(), spec.allowed.end(),
                     [&](std::string_view a) { return ToLower(a) == lower; });
}

std::vector<std::string> SplitDots(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    out.push_back(s.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) return out;
    start = dot + 1;
  }
}

}  // namespace

bool Validator::IsSet(const std::string& key) const {
  const ConfigValue* v = conf_.Find(key);
  return v != nullptr && !v->FromDefaults();
}

Validator::Field Validator::Lookup(const std::string& key) const {
  if (const ConfigValue* v = conf_.Find(key); v != nullptr) {
    return {conf_.GetOr(key, v->value), v->source};
  }
  return {DefaultOf(key), kDefaultsSource};
}

std::string Validator::DefaultOf(const std::string& key) const {
  const KeySpec* spec = FindKeySpec(key);
  return spec == nullptr ? "" : std::string(spec->default_value);
}

std::string Validator::Describe(const std::string& key) const {
  Field f = Lookup(key);
  return key + " = \"" + f.value + "\" (from " + f.source + ")";
}

void Validator::AddError(std::string message) { errors_.push_back(std::move(message)); }

void Validator::KeyError(const std::string& key, const std::string& accepted) {
  if (!keys_with_errors_.insert(key).second) return;
  AddError(Describe(key) + ": expected " + accepted);
}

Status Validator::ToStatus() const {
  if (errors_.empty()) return Status::Ok();
  return InvalidArgument(Join(errors_, "\n"));
}

void Validator::CheckAllTypes() {
  for (const auto& [key, value] : conf_.entries()) CheckType(key);
}

void Validator::CheckType(const std::string& key) {
  const KeySpec* spec = FindKeySpec(key);
  if (spec == nullptr) return;
  // Read for the check alone: a bad value is recorded in errors_, the value is not needed here.
  switch (spec->type) {
    case KeyType::kInt:
      (void)Int(key);
      break;
    case KeyType::kLong:
    case KeyType::kDurationMs:
      (void)Long(key);
      break;
    case KeyType::kBool:
      (void)Bool(key);
      break;
    case KeyType::kMemory:
      if (key == kMaxTotalMemoryKey) {
        (void)MemoryCap(key);
      } else {
        (void)Memory(key, 0);
      }
      break;
    case KeyType::kEnum:
      (void)Enum(key);
      break;
    case KeyType::kString:
    case KeyType::kList:
      break;
  }
}

std::string Validator::String(const std::string& key) const { return Lookup(key).value; }

std::vector<std::string> Validator::List(const std::string& key) const {
  return SplitTrimmed(Lookup(key).value, ',');
}

bool Validator::Bool(const std::string& key) {
  Field f = Lookup(key);
  // An empty value means "unset" for every typed key: tony.xml files often carry blank values.
  if (Trim(f.value).empty()) return ParseBool(DefaultOf(key)).value_or(false);
  std::optional<bool> b = ParseBool(f.value);
  if (!b) {
    KeyError(key, "true or false");
    return ParseBool(DefaultOf(key)).value_or(false);
  }
  return *b;
}

int64_t Validator::Long(const std::string& key, int64_t min) {
  const KeySpec* spec = FindKeySpec(key);
  Field f = Lookup(key);
  std::optional<int64_t> fallback = ParseInt64(DefaultOf(key));
  int64_t safe = std::max(fallback.value_or(min), min);
  if (Trim(f.value).empty()) return safe;
  std::optional<int64_t> n = ParseInt64(f.value);
  bool is_int = spec != nullptr && spec->type == KeyType::kInt;
  if (!n || (is_int && !FitsInt(*n))) {
    KeyError(key, spec != nullptr ? DescribeAccepted(*spec) : "an integer");
    return safe;
  }
  if (*n < min) {
    KeyError(key, "an integer >= " + std::to_string(min));
    return safe;
  }
  return *n;
}

int Validator::Int(const std::string& key, int64_t min) {
  int64_t v = Long(key, min);
  return FitsInt(v) ? static_cast<int>(v) : static_cast<int>(min);
}

int64_t Validator::Memory(const std::string& key, int64_t min_mb) {
  Field f = Lookup(key);
  Result<int64_t> fallback = ParseMemoryMb(DefaultOf(key));
  int64_t safe = std::max(fallback.ok() ? *fallback : min_mb, min_mb);
  if (Trim(f.value).empty()) return safe;
  Result<int64_t> mb = ParseMemoryMb(f.value);
  if (!mb.ok()) {
    KeyError(key, kMemorySizeForms);
    return safe;
  }
  if (*mb < min_mb) {
    KeyError(key, "a memory size of at least " + std::to_string(min_mb) + " MB");
    return safe;
  }
  return *mb;
}

int64_t Validator::MemoryCap(const std::string& key) {
  Field f = Lookup(key);
  std::optional<int64_t> n = ParseInt64(f.value);
  if (Trim(f.value).empty() || (n && *n < 0)) return -1;
  Result<int64_t> mb = ParseMemoryMb(f.value);
  if (!mb.ok()) {
    KeyError(key, std::string(kMemorySizeForms) + ", or -1 for no cap");
    return -1;
  }
  return *mb;
}

std::string Validator::Enum(const std::string& key) {
  const KeySpec* spec = FindKeySpec(key);
  Field f = Lookup(key);
  if (spec == nullptr) return f.value;
  if (Trim(f.value).empty()) return std::string(spec->default_value);
  if (!EnumAllows(*spec, f.value)) {
    KeyError(key, DescribeAccepted(*spec));
    return std::string(spec->default_value);
  }
  return std::string(Trim(f.value));
}

namespace {

// For a key that fits a per-role template but names a role nothing declares (a misspelt role),
// the same key with the closest declared role; nullopt when none is close.
std::optional<std::string> MisspeltRoleFix(const std::string& key, const KeySpec& spec,
                                           const std::vector<std::string>& declared_roles) {
  std::vector<std::string> templ = SplitDots(std::string(spec.name));
  std::vector<std::string> parts = SplitDots(key);
  auto pos = std::find(templ.begin(), templ.end(), "<role>");
  if (pos == templ.end() || templ.size() != parts.size()) return std::nullopt;
  std::string& role = parts[pos - templ.begin()];
  if (role == "am" ||
      std::find(declared_roles.begin(), declared_roles.end(), role) != declared_roles.end()) {
    return std::nullopt;
  }
  constexpr size_t kMaxRoleDistance = 2;
  for (const std::string& r : declared_roles) {
    if (EditDistance(role, r) <= kMaxRoleDistance) {
      role = r;
      return Join(parts, ".");
    }
  }
  return std::nullopt;
}

// Keys that articles about TonY use but TonY never had, with what does the job.
std::optional<std::string> WrongKeyHint(const std::string& key) {
  if (key == "tony.docker.image") {
    return "TonY's keys are tony.docker.containers.image (or tony.docker.<role>.image) with "
           "tony.docker.enabled=true";
  }
  if (key == "tony.application.virtualenv.zip" || key == "tony.application.python-venv") {
    return "ship a virtualenv with --python_venv <zip> (tony.python-venv)";
  }
  return std::nullopt;
}

std::string UnknownKeyWarning(const std::string& key, const std::string& source) {
  std::string w = "unknown key " + key + " (from " + source + ")";
  if (std::optional<std::string> hint = WrongKeyHint(key)) return w + "; " + *hint;
  if (std::optional<std::string> near = ClosestKnownKey(key)) {
    w += "; did you mean " + *near + "?";
  }
  std::vector<std::string> parts = SplitDots(key);
  if (parts.size() == 3 && parts[2] == "instances") {
    w += " (role names are lowercase letters only, [a-z]+)";
  }
  return w;
}

}  // namespace

std::vector<std::string> UnknownKeyWarnings(const Configuration& conf,
                                            const std::vector<std::string>& declared_roles) {
  std::vector<std::string> warnings;
  for (const auto& [key, value] : conf.entries()) {
    if (!StartsWith(key, "tony.")) continue;
    const KeySpec* spec = FindKeySpec(key);
    if (spec == nullptr) {
      warnings.push_back(UnknownKeyWarning(key, value.source));
    } else if (std::optional<std::string> fix = MisspeltRoleFix(key, *spec, declared_roles)) {
      warnings.push_back("key " + key + " (from " + value.source +
                         ") names a role with no instances key; did you mean " + *fix + "?");
    }
  }
  return warnings;
}

std::vector<std::string> UnsupportedKeyWarnings(const Configuration& conf) {
  std::vector<std::string> warnings;
  for (const auto& [key, value] : conf.entries()) {
    const KeySpec* spec = FindKeySpec(key);
    if (spec == nullptr || spec->unsupported.empty() || value.FromDefaults()) continue;
    // A flag's own key (--src_dir sets tony.src-dir): the flag did what the key describes.
    if (StartsWith(value.source, "--") && value.source != "--conf") continue;
    // Set to what TonY would do anyway (e.g. tony.am.retry-count=0): nothing is lost.
    if (Trim(value.value) == Trim(spec->default_value)) continue;
    warnings.push_back(
        key + " = \"" + value.value + "\" (from " + value.source +
        ") is not supported by tony and has no effect: " + std::string(spec->unsupported));
  }
  return warnings;
}

}  // namespace tony::config_internal
