// Hadoop configuration XML (tony.xml, tony-site.xml, the cluster's *-site.xml, and tony-final.xml,
// which the coordinator reads back from what the client wrote), then everything that reads a
// Configuration: ${...} expansion, the validator and the JobSpec builder.
// What parses must come back unchanged through ToXml, as tony-final.xml does.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/configuration.h"
#include "config/job_spec.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string xml(reinterpret_cast<const char*>(data), size);
  tony::Configuration conf = tony::Configuration::WithDefaults();
  if (!conf.AddXml(xml, "tony.xml").ok()) return 0;

  tony::Configuration back;
  tony::Status reread = back.AddXml(conf.ToXml(), "tony-final.xml");
  if (!reread.ok()) {
    std::fprintf(stderr, "%s\n", reread.ToString().c_str());
    FUZZ_CHECK(reread.ok());
  }
  FUZZ_CHECK(back.entries().size() == conf.entries().size());
  for (const auto& [key, v] : conf.entries()) {
    const tony::ConfigValue* w = back.Find(key);
    FUZZ_CHECK(w != nullptr);
    FUZZ_CHECK(w->value == v.value && w->source == v.source && w->final == v.final);
    (void)conf.Get(key);
  }

  (void)tony::BuildJobSpec(conf);
  (void)tony::UnknownKeyWarnings(conf);
  return 0;
}
