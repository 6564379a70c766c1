#include "cli/flags.h"

#include "common/strings.h"

namespace tony::cli {

std::string ParsedFlags::Get(const std::string& name, const std::string& fallback) const {
  auto it = values.find(name);
  if (it == values.end() || it->second.empty()) return fallback;
  return it->second.back();
}

const std::vector<std::string>& ParsedFlags::All(const std::string& name) const {
  static const std::vector<std::string> kEmpty;
  auto it = values.find(name);
  return it == values.end() ? kEmpty : it->second;
}

Result<ParsedFlags> ParseFlags(const std::vector<std::string>& args,
                               const std::vector<FlagSpec>& specs) {
  ParsedFlags out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      out.positional.insert(out.positional.end(), args.begin() + static_cast<long>(i) + 1,
                            args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      out.positional.push_back(arg);
      continue;
    }
    std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string name = body;
    std::string value;
    bool has_inline_value = false;
    size_t eq = body.find('=');
    if (eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_inline_value = true;
    }
    const FlagSpec* spec = nullptr;
    for (const auto& s : specs) {
      bool alias =
          name.size() == 1 && (name[0] == s.short_name || (name == "h" && s.name == "help"));
      if (s.name == name || alias) spec = &s;
    }
    if (spec != nullptr) name = spec->name;
    if (spec == nullptr) {
      std::string best;
      size_t best_distance = 4;
      for (const auto& s : specs) {
        size_t d = EditDistance(name, s.name);
        if (d < best_distance) {
          best_distance = d;
          best = s.name;
        }
      }
      return InvalidArgument("unknown flag " + arg +
                             (best.empty() ? "" : "; did you mean --" + best + "?"));
    }
    if (!spec->takes_value) {
      if (has_inline_value) return InvalidArgument("flag --" + name + " takes no value");
      out.values[name].push_back("true");
      continue;
    }
    if (!has_inline_value) {
      if (i + 1 >= args.size()) return InvalidArgument("flag --" + name + " needs a value");
      value = args[++i];
    }
    if (!spec->repeatable && out.Has(name)) {
      return InvalidArgument("flag --" + name + " given more than once");
    }
    out.values[name].push_back(value);
  }
  return out;
}

std::string FlagsHelp(const std::vector<FlagSpec>& specs) {
  std::string out;
  for (const auto& s : specs) {
    std::string left = "  --" + s.name + (s.takes_value ? " <value>" : "");
    if (s.short_name != 0) left += std::string(", -") + s.short_name;
    if (left.size() < 34) left.resize(34, ' ');
    out += left + " " + s.help + (s.repeatable ? " (repeatable)" : "") + "\n";
  }
  return out;
}

bool WantsHelp(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--") return false;
    if (a == "--help" || a == "-help" || a == "-h") return true;
  }
  return false;
}

}  // namespace tony::cli
