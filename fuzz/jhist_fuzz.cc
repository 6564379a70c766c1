// A TonY .jhist events file as `tony portal --history` reads it (portal/jhist.h): Avro C decodes
// a file someone else's AM may have written, or one cut in the middle of a block while it runs.
// Whatever the bytes, reading returns (events or an error) without crashing or leaking.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz/fuzz_check.h"
#include "portal/jhist.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Avro C reads a file: one per process, rewritten for each input.
  static const std::string path = "/tmp/tony-jhist-fuzz-" + std::to_string(::getpid()) + ".jhist";
  FILE* f = std::fopen(path.c_str(), "wb");
  FUZZ_CHECK(f != nullptr);
  FUZZ_CHECK(std::fwrite(data, 1, size, f) == size);
  FUZZ_CHECK(std::fclose(f) == 0);
  auto events = tony::portal::ReadJhistEvents(path);
  if (events.ok()) {
    for (const auto& e : *events) FUZZ_CHECK(!e.fields.empty());
  }
  std::remove(path.c_str());
  return 0;
}
