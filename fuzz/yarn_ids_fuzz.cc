// YARN id strings (docs/hadoop-ipc.md §4.2) as users type them (`tony kill application_…`) and as
// YARN hands them around (CONTAINER_ID in a container's environment), and host:port addresses
// from the cluster's XML. What parses must print back to an id that parses to the same proto.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/net.h"
#include "fuzz/fuzz_check.h"
#include "hadoop/yarn/records.h"

namespace yarn = tony::hadoop::yarn;
using tony::ParseHostPort;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);

  if (auto app = yarn::ParseApplicationId(in); app.ok()) {
    auto again = yarn::ParseApplicationId(yarn::ApplicationIdString(*app));
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(again->SerializeAsString() == app->SerializeAsString());
  }
  if (auto container = yarn::ParseContainerId(in); container.ok()) {
    auto again = yarn::ParseContainerId(yarn::ContainerIdString(*container));
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(again->SerializeAsString() == container->SerializeAsString());
  }
  if (auto address = ParseHostPort(in, "fuzz"); address.ok()) {
    FUZZ_CHECK(address->port > 0);
    // Written back, it reads the same (a host with blanks aside: they are trimmed).
    if (address->host.find_first_of(" \t\r\n\f\v") == std::string::npos) {
      auto again = ParseHostPort(address->ToString(), "fuzz");
      FUZZ_CHECK(again.ok() && again->host == address->host && again->port == address->port);
    }
  }
  return 0;
}
