#include "common/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>

#include "common/strings.h"

namespace tony {
namespace {

std::string& Component() {
  static std::string component = "tony";
  return component;
}

std::atomic<int>& Level() {
  static std::atomic<int> level{static_cast<int>(LogLevel::kInfo)};
  return level;
}

}  // namespace

std::optional<LogLevel> ParseLogLevel(std::string_view text) {
  const std::string lower = ToLower(text);
  if (lower == "debug") return LogLevel::kDebug;
  if (lower == "info") return LogLevel::kInfo;
  if (lower == "warning" || lower == "warn") return LogLevel::kWarning;
  if (lower == "error") return LogLevel::kError;
  return std::nullopt;
}

void SetLogComponent(std::string_view component) {
  Component() = std::string(component);
  const char* env = std::getenv("TONY_LOG_LEVEL");
  if (env == nullptr || *env == '\0') return;
  if (std::optional<LogLevel> level = ParseLogLevel(env)) {
    SetLogLevel(*level);
    return;
  }
  TONY_LOG(kWarning) << "TONY_LOG_LEVEL=" << env
                     << " is not a log level (debug, info, warning or error); logging at info";
}
void SetLogLevel(LogLevel level) { Level() = static_cast<int>(level); }
LogLevel GetLogLevel() { return static_cast<LogLevel>(Level().load()); }

LogMessage::~LogMessage() {
  auto now = std::chrono::system_clock::now();
  std::time_t secs = std::chrono::system_clock::to_time_t(now);
  int millis = static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
  static const char kLevels[] = {'D', 'I', 'W', 'E'};
  char prefix[80];
  std::snprintf(prefix, sizeof(prefix), "%s.%03dZ %c %s] ", stamp, millis,
                kLevels[static_cast<int>(level_)], Component().c_str());
  std::string line = prefix + stream_.str() + "\n";
  // A log line that cannot be written has nowhere else to be said.
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

}  // namespace tony
