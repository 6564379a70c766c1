#include "common/http_request.h"

#include <cctype>
#include <vector>

#include "common/strings.h"

namespace tony {
namespace {

bool IsTokenChar(char c) {
  if (std::isalnum(static_cast<unsigned char>(c))) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTokenChar(c)) return false;
  }
  return true;
}

// Visible ASCII, space and tab (no other control bytes, no DEL).
bool IsFieldText(std::string_view s) {
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) return false;
  }
  return true;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The head's lines without their CRLF or LF; the blank line that ends it is not included.
std::vector<std::string_view> Lines(std::string_view head) {
  std::vector<std::string_view> lines;
  while (!head.empty()) {
    size_t nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    head.remove_prefix(nl + 1);
  }
  return lines;
}

}  // namespace

size_t HttpHeadLength(std::string_view buffer) {
  for (size_t i = 0; i < buffer.size(); ++i) {
    if (buffer[i] != '\n') continue;
    if (i >= 1 && buffer[i - 1] == '\n') return i + 1;
    if (i >= 2 && buffer[i - 1] == '\r' && buffer[i - 2] == '\n') return i + 1;
    if (i == 0 || (i == 1 && buffer[0] == '\r')) return i + 1;  // an empty head
  }
  return 0;
}

Result<HttpRequest> ParseHttpRequestHead(std::string_view head) {
  if (head.size() > kMaxHttpRequestHead) {
    return InvalidArgument("request head of " + std::to_string(head.size()) + " bytes; at most " +
                           std::to_string(kMaxHttpRequestHead));
  }
  std::vector<std::string_view> lines = Lines(head);
  if (lines.empty()) return InvalidArgument("empty request");
  std::string_view line = lines[0];
  if (!IsFieldText(line)) return InvalidArgument("control bytes in the request line");
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return InvalidArgument("request line is not 'METHOD /path HTTP/1.x'");
  }
  HttpRequest req;
  req.method = std::string(line.substr(0, sp1));
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  req.version = std::string(line.substr(sp2 + 1));
  if (!IsToken(req.method)) return InvalidArgument("bad method");
  if (req.version != "HTTP/1.1" && req.version != "HTTP/1.0") {
    return InvalidArgument("unsupported version " + req.version.substr(0, 16));
  }
  if (target.empty() || target[0] != '/' || target.find('\t') != std::string_view::npos) {
    return InvalidArgument("the target is not an absolute path");
  }
  req.path = std::string(target.substr(0, target.find_first_of("?#")));
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view h = lines[i];
    if (!IsFieldText(h)) return InvalidArgument("control bytes in a header");
    if (h[0] == ' ' || h[0] == '\t') return InvalidArgument("folded header line");
    size_t colon = h.find(':');
    if (colon == std::string_view::npos || !IsToken(h.substr(0, colon))) {
      return InvalidArgument("header line without a name");
    }
    std::string name = Lower(h.substr(0, colon));
    std::string_view value = Trim(h.substr(colon + 1));
    if (name == "transfer-encoding" || (name == "content-length" && value != "0")) {
      req.has_body = true;
    }
  }
  return req;
}

}  // namespace tony
