#include "engine/yarn_contract.h"

#include <algorithm>

#include "common/strings.h"

namespace tony::engine {

bool YarnResource::ForRole(const std::string& role) const {
  return roles.empty() || std::find(roles.begin(), roles.end(), role) != roles.end();
}

std::string FormatYarnResources(const std::vector<YarnResource>& resources) {
  std::string out;
  for (const auto& r : resources) {
    out += r.name + "\t" + r.file.scheme + "\t" + r.file.host + "\t" + std::to_string(r.file.port) +
           "\t" + r.file.path + "\t" + std::to_string(r.file.size) + "\t" +
           std::to_string(r.file.modification_time) + (r.archive ? "\tARCHIVE" : "\tFILE") +
           (r.roles.empty() ? "" : "\t" + Join(r.roles, ",")) + "\n";
  }
  return out;
}

Result<std::vector<YarnResource>> ParseYarnResources(const std::string& text) {
  std::vector<YarnResource> out;
  for (const auto& line : SplitTrimmed(text, '\n')) {
    if (line.empty()) continue;
    auto f = SplitTrimmed(line, '\t');
    bool fields_ok = f.size() == 7 || ((f.size() == 8 || (f.size() == 9 && !f[8].empty())) &&
                                       (f[7] == "FILE" || f[7] == "ARCHIVE"));
    auto port = fields_ok ? ParseInt64(f[3]) : std::nullopt;
    auto size = fields_ok ? ParseInt64(f[5]) : std::nullopt;
    auto mtime = fields_ok ? ParseInt64(f[6]) : std::nullopt;
    // A port past 16 bits used to wrap into another port; -1 is "none" (an HA nameservice,
    // hdfs://<ns>/path); sizes and times are never negative.
    if (!port || !size || !mtime || *port < -1 || *port > 65535 || *size < 0 || *mtime < 0) {
      return InvalidArgument("bad resource line: " + line);
    }
    out.push_back({f[0],
                   {f[1], f[2], static_cast<int>(*port), f[4], *size, *mtime},
                   f.size() >= 8 && f[7] == "ARCHIVE",
                   f.size() == 9 ? SplitTrimmed(f[8], ',') : std::vector<std::string>{}});
  }
  return out;
}

}  // namespace tony::engine
