#include "rpc/am_address.h"

#include <vector>

#include "common/net.h"
#include "common/strings.h"

namespace tony::rpc {

std::string AmAddressPath(const std::string& staging_dir) { return staging_dir + "/am/address"; }

std::string AmAddressTmpPath(const std::string& staging_dir) {
  return staging_dir + "/am/address.tmp";
}

std::string FormatAmAddress(const AmAddress& a) { return a.attempt + " " + a.address + "\n"; }

Result<AmAddress> ParseAmAddress(std::string_view text, const std::string& where) {
  std::string_view line = Trim(text);
  const std::string shown(line.substr(0, 200));
  std::vector<std::string> fields = SplitTrimmed(line, ' ');
  if (fields.size() != 2 || line.find('\n') != std::string_view::npos) {
    return InvalidArgument(where + ": \"" + shown +
                           "\" is not one line \"<app attempt id> <host>:<port>\"");
  }
  if (!StartsWith(fields[0], "appattempt_")) {
    return InvalidArgument(where + ": \"" + fields[0] + "\" is not an application attempt id " +
                           "(appattempt_<cluster timestamp>_<app>_<attempt>)");
  }
  if (auto hp = ParseHostPort(fields[1], where); !hp.ok()) return hp.status();
  return AmAddress{fields[0], fields[1]};
}

}  // namespace tony::rpc
