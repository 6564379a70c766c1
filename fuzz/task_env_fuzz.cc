// The published cluster spec as the executor receives it: role -> the "host:port" each peer
// registered (the coordinator passes them on unchecked). Every task's environment is built from
// it; the JSON ones (CLUSTER_SPEC, TF_CONFIG) must be valid JSON and say what the spec says.
// Input: a first line naming the framework, then one "role<TAB>address" a line.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/strings.h"
#include "fuzz/fuzz_check.h"
#include "runtime/runtime.h"

namespace {

constexpr size_t kMaxTasks = 64;

tony::runtime::Cluster ReadCluster(std::string_view in, std::string* framework) {
  tony::runtime::Cluster cluster;
  size_t start = 0;
  size_t tasks = 0;
  bool first = true;
  while (start < in.size() && tasks < kMaxTasks) {
    size_t end = in.find('\n', start);
    if (end == std::string_view::npos) end = in.size();
    std::string_view line = in.substr(start, end - start);
    start = end + 1;
    if (first) {
      *framework = std::string(line);
      first = false;
      continue;
    }
    size_t tab = line.find('\t');
    if (tab == std::string_view::npos) continue;
    cluster[std::string(line.substr(0, tab))].emplace_back(line.substr(tab + 1));
    ++tasks;
  }
  return cluster;
}

bool IsUtf8(const tony::runtime::Cluster& cluster) {
  try {
    (void)nlohmann::json(cluster).dump();  // the harness may catch what tony must not throw
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string framework;
  tony::runtime::Cluster cluster =
      ReadCluster(std::string_view(reinterpret_cast<const char*>(data), size), &framework);
  const auto& known = tony::runtime::KnownFrameworks();
  // mxnet resolves host names (not a pure function); the others build from the spec alone.
  if (std::find(known.begin(), known.end(), framework) == known.end() || framework == "mxnet") {
    framework = "tensorflow";
  }

  tony::JobSpec spec;
  spec.framework = framework;
  for (const auto& [role, addresses] : cluster) {
    tony::RoleSpec r;
    r.name = role;
    r.instances = static_cast<int>(addresses.size());
    r.command = "true";
    r.sidecar = role == "tensorboard";
    spec.roles.push_back(r);
  }
  if (cluster.contains("chief")) {
    spec.chief_role = "chief";
  } else if (cluster.contains("worker")) {
    spec.chief_role = "worker";
  }

  auto cluster_json = nlohmann::json::parse(tony::runtime::ClusterSpecJson(cluster), nullptr,
                                            /*allow_exceptions=*/false);
  FUZZ_CHECK(cluster_json.is_object());
  // Bytes that are not UTF-8 are replaced (U+FFFD); everything else must come back as it was.
  if (IsUtf8(cluster)) FUZZ_CHECK(cluster_json.get<tony::runtime::Cluster>() == cluster);
  // What tony does to outside text bound for JSON or proto3 strings: U+FFFD for what is not
  // UTF-8, nothing else changed.
  for (const auto& [role, addresses] : cluster) {
    for (const auto& a : addresses) {
      std::string valid = tony::ToValidUtf8(a);
      FUZZ_CHECK(IsUtf8({{"x", {valid}}}));
      if (IsUtf8({{"x", {a}}})) FUZZ_CHECK(valid == a);
    }
  }
  if (cluster.contains("worker")) {
    (void)tony::runtime::HorovodSlots(cluster.at("worker"));
    (void)tony::runtime::HorovodWorkerList(cluster.at("worker"));
  }

  for (const auto& role : spec.roles) {
    for (int i = 0; i < role.instances; ++i) {
      tony::runtime::TaskEnvInput in;
      in.spec = &spec;
      in.job_id = "tony-fuzz";
      in.role = role.name;
      in.index = i;
      in.cluster = cluster;
      in.am_host = "10.0.0.100";
      in.am_port = 4000;
      auto env = tony::runtime::BuildTaskEnv(in);
      if (!env.ok()) continue;
      for (const char* name : {"TF_CONFIG", "CLUSTER_SPEC"}) {
        auto it = env->find(name);
        if (it == env->end()) continue;
        auto j = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
        FUZZ_CHECK(j.is_object());
      }
    }
  }
  return 0;
}
