// tony-resources.txt, the list of staged files the client hands the YARN AM (engine/yarn): one
// "name scheme host port path size modification_time [FILE|ARCHIVE]" a line, tab-separated. What
// parses must format and parse back unchanged.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/yarn_contract.h"
#include "fuzz/fuzz_check.h"

namespace {

bool Same(const tony::engine::YarnResource& a, const tony::engine::YarnResource& b) {
  return a.name == b.name && a.file.scheme == b.file.scheme && a.file.host == b.file.host &&
         a.file.port == b.file.port && a.file.path == b.file.path && a.file.size == b.file.size &&
         a.file.modification_time == b.file.modification_time && a.archive == b.archive &&
         a.roles == b.roles;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto resources = tony::engine::ParseYarnResources(text);
  if (!resources.ok()) return 0;
  for (const auto& r : *resources) {
    FUZZ_CHECK(r.file.port >= -1 && r.file.port <= 65535);  // -1: no port (HA nameservice)
    FUZZ_CHECK(r.file.size >= 0 && r.file.modification_time >= 0);
  }
  auto again = tony::engine::ParseYarnResources(tony::engine::FormatYarnResources(*resources));
  FUZZ_CHECK(again.ok() && again->size() == resources->size());
  for (size_t i = 0; i < resources->size(); ++i) FUZZ_CHECK(Same((*resources)[i], (*again)[i]));
  return 0;
}
