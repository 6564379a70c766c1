// Command-line parsing with TonY's submitter conventions: single or double dash, "--flag value"
// or "--flag=value", repeatable flags collected in order. Unknown flags are errors that suggest
// the closest known one (TonY's parser silently drops the rest of the line instead). A flag may
// have a one-letter alias (`-f`); `-h` is the alias of a "help" flag when the specs have one.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace tony::cli {

struct FlagSpec {
  std::string name;
  bool takes_value = true;
  bool repeatable = false;
  std::string help;
  char short_name = 0;  // e.g. 'f' for -f; a one-letter alias of the flag
};

struct ParsedFlags {
  std::map<std::string, std::vector<std::string>> values;  // flag -> values in order
  std::vector<std::string> positional;

  bool Has(const std::string& name) const { return values.count(name) > 0; }
  // The last value given for a flag, or `fallback`.
  std::string Get(const std::string& name, const std::string& fallback = "") const;
  const std::vector<std::string>& All(const std::string& name) const;
};

Result<ParsedFlags> ParseFlags(const std::vector<std::string>& args,
                               const std::vector<FlagSpec>& specs);

std::string FlagsHelp(const std::vector<FlagSpec>& specs);

// True when `args` ask for help (--help, -help or -h) before any "--".
bool WantsHelp(const std::vector<std::string>& args);

}  // namespace tony::cli
