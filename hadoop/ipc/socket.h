// Blocking TCP helpers for the IPC connection: connect with a deadline, write all, read exactly.
//
// Thread-safety: functions on an fd; the caller decides who reads and who writes.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace tony::hadoop::ipc {

using Deadline = std::optional<std::chrono::steady_clock::time_point>;  // nullopt: no limit

// Resolves host and connects (TCP_NODELAY set); the returned fd is blocking.
Result<int> ConnectTcp(const std::string& host, uint16_t port, std::chrono::milliseconds timeout);
Status WriteAll(int fd, std::string_view bytes);
// Reads exactly n bytes. kUnavailable on EOF or reset, kDeadlineExceeded past the deadline.
Status ReadExactly(int fd, size_t n, std::string* out, Deadline deadline);

}  // namespace tony::hadoop::ipc
