#include "portal/html.h"

#include <algorithm>
#include <cctype>

#include "common/utc_time.h"

namespace tony::portal {

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '"') {
      out += "&quot;";
    } else if (c == '\'') {
      out += "&#39;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string WallTime(int64_t ms) { return ms > 0 ? UtcTime(ms) : "-"; }

std::string Duration(int64_t start_ms, int64_t end_ms, int64_t now_ms) {
  if (start_ms <= 0) return "-";
  int64_t s = std::max<int64_t>((end_ms > 0 ? end_ms : now_ms) - start_ms, 0) / 1000;
  std::string out;
  if (s >= 3600) out += std::to_string(s / 3600) + "h";
  if (s >= 60) out += std::to_string(s / 60 % 60) + "m";
  return out + std::to_string(s % 60) + "s";
}

std::string StateClass(std::string_view state) {
  if (state == "SUCCEEDED") return "good";
  if (state == "FAILED" || state == "KILLED" || state == "LOST" || state == "STALLED") return "bad";
  if (state == "RUNNING" || state == "REGISTERED" || state == "ALLOCATED" || state == "NEW" ||
      state == "STOPPING") {
    return "live";
  }
  return "other";
}

std::string Page(const std::string& title, const std::string& body, int refresh_s) {
  std::string refresh =
      refresh_s > 0 ? "<meta http-equiv=\"refresh\" content=\"" + std::to_string(refresh_s) + "\">"
                    : "";
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">" + refresh + "<title>" +
         Escape(title) +
         " - tony portal</title>\n<style>\n"
         "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
         "table{border-collapse:collapse;margin:.5em 0 1.5em}\n"
         "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}\n"
         "th{background:#f0f0f0}\n"
         "pre{background:#f7f7f7;padding:.6em;white-space:pre-wrap;overflow-wrap:anywhere}\n"
         "svg text{font:12px sans-serif}svg .max{fill:#3b6ea8}svg .avg{fill:#9cc0e6}\n"
         "svg .limit{stroke:#b00020;stroke-width:2;stroke-dasharray:4 2}\n"
         ".good{color:#176f2c}.bad{color:#b00020}.live{color:#0b5cad}.other{color:#666}\n"
         "nav a{margin-right:1em}\n</style></head>\n<body>\n<nav><a href=\"/\">jobs</a></nav>\n"
         "<h1>" +
         Escape(title) + "</h1>\n" + body + "\n</body></html>\n";
}

}  // namespace tony::portal
