// Minimal leveled logging to stderr: "2026-12-02T12:00:00.123Z I am] message".
//
// Usage: TONY_LOG(kInfo) << "task " << id << " registered";
// The component tag ("submit", "am", "executor") is set once per process by SetLogComponent(),
// which also takes the level from TONY_LOG_LEVEL (debug, info, warning, error; default info;
// README "Running a job").
// Thread-safety: each message is written with one write(2), so lines never interleave.
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace tony {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

// Sets the component tag and the level from TONY_LOG_LEVEL; a value that is not a level is said
// in a warning naming it, and info applies.
void SetLogComponent(std::string_view component);
void SetLogLevel(LogLevel level);
// "debug" -> kDebug, ... (case-insensitive, "warn" too); nullopt for anything else.
std::optional<LogLevel> ParseLogLevel(std::string_view text);
LogLevel GetLogLevel();

class LogMessage {
 public:
  explicit LogMessage(LogLevel level) : level_(level) {}
  ~LogMessage();
  LogMessage(const LogMessage&) = delete;
  LogMessage& operator=(const LogMessage&) = delete;
  std::ostream& stream() { return stream_; }

 private:
  LogLevel level_;
  std::ostringstream stream_;
};

}  // namespace tony

namespace tony {
// Turns the stream expression into void so TONY_LOG can be a ternary (no dangling else).
struct LogVoidify {
  void operator&(std::ostream&) {}
};
}  // namespace tony

#define TONY_LOG(level)                             \
  (::tony::LogLevel::level < ::tony::GetLogLevel()) \
      ? (void)0                                     \
      : ::tony::LogVoidify() & ::tony::LogMessage(::tony::LogLevel::level).stream()
