// YARN id strings (docs/hadoop-ipc.md §4.2) as users type them (`tony kill application_…`) and as
// YARN hands them around (CONTAINER_ID in a container's environment), and host:port addresses
// from the cluster's XML. What parses must print back to an id that parses to the same proto.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "hadoop/yarn/clients.h"
#include "hadoop/yarn/records.h"

namespace yarn = tony::hadoop::yarn;

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
  if (auto address = yarn::ParseHostPort(in); address.ok()) {
    FUZZ_CHECK(address->second > 0);
  }
  return 0;
}
