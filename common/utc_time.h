// A wall time as people read it in messages and logs.
// Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <string>

namespace tony {

// "2026-12-06 01:00:00 UTC" for `wall_ms` (ms since the Unix epoch, Clock::WallMs).
std::string UtcTime(int64_t wall_ms);

}  // namespace tony
