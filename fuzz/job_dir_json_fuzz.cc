// The job directory's JSON files (history/job_dir.h) as `tony status`, `tony kill` and the YARN
// AM read them: status.json (the JobStatus message as JSON) and am.json ({host, port, pid}).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "history/job_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)tony::history::ParseJobStatus(text, "status.json");
  if (auto am = tony::history::ParseAmInfo(text, "am.json"); am.ok()) {
    FUZZ_CHECK(am->port >= 0 && am->pid >= 0);
  }
  return 0;
}
