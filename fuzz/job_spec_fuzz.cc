// The JobSpec builder and validator over --conf key=value overrides (one a line), which reach
// every typed reader of the key registry (memory sizes like "2g", durations, booleans, lists,
// enums) more directly than XML does; a job that validates then builds every task's environment
// for its framework (TF_CONFIG, torchrun's variables, ...).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/strings.h"
#include "config/configuration.h"
#include "config/job_spec.h"
#include "fuzz/fuzz_check.h"
#include "runtime/runtime.h"

namespace {

constexpr int kMaxTasks = 64;  // enough for every shape; bounds the work per input

void BuildEveryTaskEnv(const tony::JobSpec& spec) {
  if (spec.TotalInstances() > kMaxTasks) return;
  tony::runtime::Cluster cluster;
  int n = 0;
  for (const auto& role : spec.roles) {
    for (int i = 0; i < role.instances; ++i) {
      ++n;
      cluster[role.name].push_back("10.0.0." + std::to_string(n) + ":" + std::to_string(2000 + n));
    }
  }
  for (const auto& role : spec.roles) {
    for (int i = 0; i < role.instances; ++i) {
      for (int local = 0; local < std::min(role.nproc_per_task, 4); ++local) {
        tony::runtime::TaskEnvInput in;
        in.spec = &spec;
        in.job_id = "tony-fuzz";
        in.role = role.name;
        in.index = i;
        in.local_rank = local;
        in.cluster = cluster;
        in.am_host = "10.0.0.100";
        in.am_port = 4000;
        (void)tony::runtime::BuildTaskEnv(in);
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  tony::Configuration conf = tony::Configuration::WithDefaults();
  size_t start = 0;
  while (start < in.size()) {
    size_t end = in.find('\n', start);
    if (end == std::string_view::npos) end = in.size();
    std::string line(in.substr(start, end - start));
    start = end + 1;
    if (size_t eq = line.find('='); eq != std::string::npos) {
      std::string value = line.substr(eq + 1);
      if (auto mb = tony::ParseMemoryMb(value); mb.ok()) FUZZ_CHECK(*mb >= 0);
      (void)tony::ParseBool(value);
      (void)tony::ParseInt64(value);
      (void)tony::SplitTrimmed(value, ',');
      (void)tony::ShellSplit(value);
    }
    (void)conf.AddOverride(line);
  }
  auto spec = tony::BuildJobSpec(conf);
  (void)tony::UnknownKeyWarnings(conf);
  if (!spec.ok() || !tony::runtime::ValidateForFramework(*spec).ok()) return 0;
  if (spec->framework == "mxnet") return 0;  // resolves host names: not a pure function
  BuildEveryTaskEnv(*spec);
  return 0;
}
