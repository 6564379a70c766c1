// The head of an HTTP/1.x request, as the YARN AM's read-only status endpoint reads it from
// whoever connects (coordinator/status_http.h): untrusted bytes, bounded, GET without a body.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"

namespace tony {

// The most bytes a request head may take (request line and headers); a longer one is refused.
inline constexpr size_t kMaxHttpRequestHead = 8192;

struct HttpRequest {
  std::string method;     // "GET", ...
  std::string path;       // the target's path, without the query
  std::string version;    // "HTTP/1.1"
  bool has_body = false;  // a Content-Length other than 0, or a Transfer-Encoding
};

// The length of the head at the start of `buffer` (through the blank line that ends it, CRLF or
// bare LF), or 0 while it is not complete.
size_t HttpHeadLength(std::string_view buffer);

// Parses a complete head (HttpHeadLength bytes). kInvalidArgument for anything malformed: a bad
// request line, a target that is not an absolute path, a header line without a name, control
// bytes, a folded header. A body it announces is not read (has_body says there is one).
Result<HttpRequest> ParseHttpRequestHead(std::string_view head);

}  // namespace tony
