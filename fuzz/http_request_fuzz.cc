// The request heads the YARN AM's read-only status endpoint reads from anyone who connects
// (common/http_request.h, coordinator/status_http.h).
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/http_request.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  size_t head = tony::HttpHeadLength(text);
  FUZZ_CHECK(head <= text.size());
  auto req = tony::ParseHttpRequestHead(head > 0 ? text.substr(0, head) : text);
  if (req.ok()) {
    FUZZ_CHECK(!req->method.empty() && !req->path.empty() && req->path[0] == '/');
    FUZZ_CHECK(req->path.find_first_of("?#") == std::string::npos);
    FUZZ_CHECK(req->version == "HTTP/1.1" || req->version == "HTTP/1.0");
  }
  return 0;
}
