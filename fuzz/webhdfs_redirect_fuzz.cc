// The Location of a NameNode's 307 (docs/hadoop-ipc.md §6), which WebHDFS follows to a DataNode
// only as CheckDataNodeRedirect allows: http or https, no downgrade from an https NameNode, and
// with a host list only to those hosts. The URL carries the delegation token: a refusal's message
// must never quote it.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "hadoop/hdfs/webhdfs.h"

namespace hdfs = tony::hadoop::hdfs;

namespace {

bool StartsWithNoCase(const std::string& s, const std::string& prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string location(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> hosts = {"dn1.example.com", "127.0.0.1"};
  for (bool https : {false, true}) {
    for (const auto* list : {&hosts, static_cast<const std::vector<std::string>*>(nullptr)}) {
      tony::Status s = hdfs::CheckDataNodeRedirect(
          location, https, list != nullptr ? *list : std::vector<std::string>{}, "nn:9871");
      if (s.ok()) {
        FUZZ_CHECK(StartsWithNoCase(location, https ? "https://" : "http"));
        continue;
      }
      FUZZ_CHECK(s.code() == tony::StatusCode::kPermissionDenied);
      size_t at = location.find("delegation=");
      if (at != std::string::npos) {
        size_t end = location.find('&', at);
        std::string token =
            location.substr(at + 11, end == std::string::npos ? end : end - at - 11);
        // The same bytes may appear elsewhere in the URL (its host, say): only the parameter's
        // value must not. A value that begins like the marker, or with it ("<redacted>;"), can
        // read as the marker plus the message's own text after it; a real token (URL-safe
        // base64) never holds a '<'.
        const std::string marker = "<redacted>";
        if (!token.empty() && marker.rfind(token, 0) != 0 && token.rfind(marker, 0) != 0) {
          FUZZ_CHECK(s.message().find("delegation=" + token) == std::string::npos);
        }
      }
    }
  }
  return 0;
}
