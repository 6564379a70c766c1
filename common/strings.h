// Small string helpers shared by every layer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tony {

std::string_view Trim(std::string_view s);
// `s` up to its first newline (all of it when it has none).
std::string FirstLine(const std::string& s);
// Splits on `sep`; trims each piece and drops empty ones (Hadoop's getTrimmedStrings semantics).
std::vector<std::string> SplitTrimmed(std::string_view s, char sep);
std::string Join(const std::vector<std::string>& parts, std::string_view sep);
std::string ToLower(std::string_view s);
bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);

std::optional<int64_t> ParseInt64(std::string_view s);
// "true"/"false", case-insensitive, as Hadoop's Configuration.getBoolean accepts.
std::optional<bool> ParseBool(std::string_view s);

// `s` with each byte that does not belong to a well-formed UTF-8 sequence replaced by U+FFFD:
// for text from outside (a process's stderr) bound for proto3 strings or JSON, which must be
// UTF-8 (a proto3 message with other bytes fails to parse at the receiver).
// The end of a program's output for a message: its last `max_lines` lines, where "\n", "\r\n"
// and a lone "\r" (a progress bar redrawing itself) each end a line, empty lines dropped, at
// most `max_bytes` in all. A line over the budget keeps its end, after "...".
std::vector<std::string> TailText(std::string_view text, size_t max_lines, size_t max_bytes);
std::string ToValidUtf8(std::string_view s);

// Edit distance, used to suggest the closest known config key.
size_t EditDistance(std::string_view a, std::string_view b);

// Quotes a string for a POSIX shell (single quotes).
std::string ShellQuote(std::string_view s);

// Splits a command line the way a POSIX shell would split words (quotes, backslashes), without
// expansion. Used for --task_params.
std::vector<std::string> ShellSplit(std::string_view s);

// Lowercase hex of `n` random bytes from the OS's CSPRNG.
std::string RandomHex(size_t n_bytes);

}  // namespace tony
