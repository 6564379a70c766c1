// The job spec file (rpc/spec_file.h) as the coordinator and the executors read it: what parses
// must serialize back to bytes that parse to the same spec.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "rpc/spec_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto spec = tony::rpc::ParseJobSpec(bytes, "tony-spec.pb");
  if (!spec.ok()) return 0;
  std::string once = tony::rpc::SerializeJobSpec(*spec);
  auto again = tony::rpc::ParseJobSpec(once, "tony-spec.pb");
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(tony::rpc::SerializeJobSpec(*again) == once);
  return 0;
}
