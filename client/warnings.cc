#include "client/warnings.h"

#include <iostream>

namespace tony::client {
namespace {

std::string WarningLine(const Status& s, std::string_view what, std::string_view consequence) {
  std::string line = "tony: warning: ";
  line += what;
  line += ": ";
  line += s.message();
  if (!consequence.empty()) {
    line += "; ";
    line += consequence;
  }
  return line + "\n";
}

}  // namespace

bool WarnIfFailed(const Status& s, std::string_view what, std::string_view consequence) {
  if (s.ok()) return false;
  std::cerr << WarningLine(s, what, consequence) << std::flush;
  return true;
}

bool Warner::WarnIfFailed(const Status& s, std::string_view what, std::string_view consequence) {
  if (s.ok()) return false;
  std::string line = WarningLine(s, what, consequence);
  if (shown_.insert(line).second) std::cerr << line << std::flush;
  return true;
}

}  // namespace tony::client
