#include "common/utc_time.h"

#include <ctime>

namespace tony {

std::string UtcTime(int64_t wall_ms) {
  std::time_t seconds = static_cast<std::time_t>(wall_ms / 1000);
  std::tm tm{};
  char text[32] = {};
  if (::gmtime_r(&seconds, &tm) == nullptr ||
      std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &tm) == 0) {
    return std::to_string(wall_ms) + " ms since the epoch";
  }
  return text;
}

}  // namespace tony
