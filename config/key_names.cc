#include "config/key_names.h"

namespace tony::keys {

std::string ForRole(std::string_view key_template, std::string_view role) {
  constexpr std::string_view kPlaceholder = "<role>";
  std::string out(key_template);
  for (size_t at = out.find(kPlaceholder); at != std::string::npos;
       at = out.find(kPlaceholder, at + role.size())) {
    out.replace(at, kPlaceholder.size(), role);
  }
  return out;
}

std::string RolePrefix(std::string_view role) {
  std::string out = "tony.";
  out += role;
  return out;
}

}  // namespace tony::keys
