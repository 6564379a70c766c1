#include "common/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>

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

void SetLogComponent(std::string_view component) { Component() = std::string(component); }
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
