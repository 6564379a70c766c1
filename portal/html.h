// The pieces of the portal's HTML: escaping and the page around a body. Everything a job wrote
// (ids, names, config values, messages, log lines) goes through Escape before it is on a page.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tony::portal {

// & < > " ' as entities: safe in element text and in quoted attribute values.
std::string Escape(std::string_view text);
// Percent-encoding of everything but unreserved characters (RFC 3986 §2.3): a path segment or
// query value in a link (then Escape'd like any attribute).
std::string UrlEncode(std::string_view text);

// "2026-12-06 01:00:00 UTC", or "-" for 0.
std::string WallTime(int64_t ms);
// "1h2m3s", "-" when the start is unknown; to `now_ms` while running.
std::string Duration(int64_t start_ms, int64_t end_ms, int64_t now_ms);

// A whole page: `title` (escaped here) and `body` (HTML already). `refresh_s` > 0 reloads the page
// that often (a running job), with a plain meta refresh that needs no script.
std::string Page(const std::string& title, const std::string& body, int refresh_s = 0);

// A CSS class for a task or job state: good, bad, live or other.
std::string StateClass(std::string_view state);

}  // namespace tony::portal
