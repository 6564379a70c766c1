#include "hadoop/yarn/records.h"

#include <cstdio>
#include <limits>

#include "common/strings.h"

namespace tony::hadoop::yarn {
namespace {

std::string Padded(int64_t value, int width) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*lld", width, static_cast<long long>(value));
  return buf;
}

// The largest values the proto fields take (§4.2): ids and attempts are int32; a container id's
// int64 holds the epoch above bit 40 and the sequence number below.
constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();
constexpr int kEpochShift = 40;
constexpr int64_t kMaxSequence = (int64_t{1} << kEpochShift) - 1;
constexpr int64_t kMaxEpoch = std::numeric_limits<int64_t>::max() >> kEpochShift;

// "<a>_<b>_..." after a prefix; every part a non-negative integer. With `epoch`, the first part
// may be a container epoch "e17" (*epoch is set to true then).
Result<std::vector<int64_t>> NumericParts(std::string_view text, std::string_view prefix,
                                          std::string_view what, bool* epoch = nullptr) {
  if (!StartsWith(text, prefix)) {
    return InvalidArgument(std::string(text) + " is not " + std::string(what));
  }
  std::vector<int64_t> parts;
  for (const auto& p : SplitTrimmed(text.substr(prefix.size()), '_')) {
    std::string_view v = p;
    if (epoch != nullptr && parts.empty() && !v.empty() && v[0] == 'e') {
      v.remove_prefix(1);
      *epoch = true;
    }
    auto n = ParseInt64(v);
    if (!n || *n < 0 || v.empty() || v[0] == '+') {
      return InvalidArgument(std::string(text) + " is not " + std::string(what));
    }
    parts.push_back(*n);
  }
  return parts;
}

Status OutOfRange(std::string_view text, std::string_view part, int64_t max) {
  return InvalidArgument(std::string(text) + ": the " + std::string(part) + " is larger than " +
                         std::to_string(max));
}

}  // namespace

std::string ApplicationIdString(const pb::ApplicationIdProto& id) {
  return "application_" + std::to_string(id.cluster_timestamp()) + "_" + Padded(id.id(), 4);
}

std::string AttemptIdString(const pb::ApplicationAttemptIdProto& id) {
  return "appattempt_" + std::to_string(id.application_id().cluster_timestamp()) + "_" +
         Padded(id.application_id().id(), 4) + "_" + Padded(id.attemptid(), 6);
}

std::string ContainerIdString(const pb::ContainerIdProto& id) {
  const auto& attempt = id.app_attempt_id();
  const auto& app = attempt.has_application_id() ? attempt.application_id() : id.app_id();
  int64_t epoch = id.id() >> 40;
  int64_t seq = id.id() & 0xFFFFFFFFFFLL;
  std::string s = "container_";
  if (epoch > 0) s += "e" + Padded(epoch, 2) + "_";
  return s + std::to_string(app.cluster_timestamp()) + "_" + Padded(app.id(), 4) + "_" +
         Padded(attempt.attemptid(), 2) + "_" + Padded(seq, 6);
}

Result<pb::ApplicationIdProto> ParseApplicationId(std::string_view text) {
  TONY_ASSIGN_OR_RETURN(auto parts, NumericParts(text, "application_", "an application id"));
  if (parts.size() != 2) return InvalidArgument(std::string(text) + " is not an application id");
  if (parts[1] > kMaxInt32) return OutOfRange(text, "application number", kMaxInt32);
  pb::ApplicationIdProto id;
  id.set_cluster_timestamp(parts[0]);
  id.set_id(static_cast<int32_t>(parts[1]));
  return id;
}

Result<pb::ContainerIdProto> ParseContainerId(std::string_view text) {
  bool has_epoch = false;
  TONY_ASSIGN_OR_RETURN(auto parts, NumericParts(text, "container_", "a container id", &has_epoch));
  int64_t epoch = 0;
  if (has_epoch && parts.size() == 5) {
    epoch = parts[0];
    parts.erase(parts.begin());
  }
  if (parts.size() != 4) return InvalidArgument(std::string(text) + " is not a container id");
  if (epoch > kMaxEpoch) return OutOfRange(text, "epoch", kMaxEpoch);
  if (parts[1] > kMaxInt32) return OutOfRange(text, "application number", kMaxInt32);
  if (parts[2] > kMaxInt32) return OutOfRange(text, "attempt number", kMaxInt32);
  if (parts[3] > kMaxSequence) return OutOfRange(text, "container number", kMaxSequence);
  pb::ContainerIdProto id;
  pb::ApplicationIdProto app;
  app.set_cluster_timestamp(parts[0]);
  app.set_id(static_cast<int32_t>(parts[1]));
  *id.mutable_app_id() = app;
  *id.mutable_app_attempt_id()->mutable_application_id() = app;
  id.mutable_app_attempt_id()->set_attemptid(static_cast<int32_t>(parts[2]));
  id.set_id((epoch << kEpochShift) | parts[3]);
  return id;
}

pb::ResourceProto ToProto(const Resource& r) {
  pb::ResourceProto p;
  p.set_memory(r.memory_mb);
  p.set_virtual_cores(r.vcores);
  if (r.gpus > 0) {  // §4.2: fields 1 and 2, plus one map entry per extra type
    auto* gpu = p.add_resource_value_map();
    gpu->set_key(std::string(kGpuResource));
    gpu->set_value(r.gpus);
  }
  return p;
}

Resource FromProto(const pb::ResourceProto& p) {
  Resource r;
  r.memory_mb = p.memory();
  r.vcores = p.virtual_cores();
  for (const auto& info : p.resource_value_map()) {
    if (info.key() == kGpuResource) r.gpus = info.value();
  }
  return r;
}

std::string ToString(const Resource& r) {
  std::string s =
      "<memory:" + std::to_string(r.memory_mb) + " MB, vcores:" + std::to_string(r.vcores);
  if (r.gpus > 0) s += ", " + std::string(kGpuResource) + ":" + std::to_string(r.gpus);
  return s + ">";
}

pb::LocalResourceProto MakeLocalResource(const RemoteFile& file, pb::LocalResourceTypeProto type,
                                         pb::LocalResourceVisibilityProto visibility) {
  pb::LocalResourceProto r;
  auto* url = r.mutable_resource();
  url->set_scheme(file.scheme);
  url->set_host(file.host);
  url->set_port(file.port);
  url->set_file(file.path);
  r.set_size(file.size);
  r.set_timestamp(file.modification_time);
  r.set_type(type);
  r.set_visibility(visibility);
  return r;
}

void AddLocalResource(pb::ContainerLaunchContextProto* ctx, const std::string& name,
                      const pb::LocalResourceProto& resource) {
  auto* entry = ctx->add_localresources();
  entry->set_key(name);
  *entry->mutable_value() = resource;
}

void AddDockerRuntime(pb::ContainerLaunchContextProto* ctx, const std::string& image,
                      const std::string& mounts) {
  AddEnvironment(ctx, "YARN_CONTAINER_RUNTIME_TYPE", "docker");
  AddEnvironment(ctx, "YARN_CONTAINER_RUNTIME_DOCKER_IMAGE", image);
  if (!mounts.empty()) AddEnvironment(ctx, "YARN_CONTAINER_RUNTIME_DOCKER_MOUNTS", mounts);
}

void AddEnvironment(pb::ContainerLaunchContextProto* ctx, const std::string& key,
                    const std::string& value) {
  for (auto& e : *ctx->mutable_environment()) {
    if (e.key() == key) {
      e.set_value(value);
      return;
    }
  }
  auto* entry = ctx->add_environment();
  entry->set_key(key);
  entry->set_value(value);
}

void SetTokens(pb::ContainerLaunchContextProto* ctx, const security::Credentials& credentials) {
  ctx->set_tokens(credentials.Serialize(security::Credentials::Format::kWritable));
}

bool IsSafeEnvironmentValue(std::string_view value) {
  return value.find_first_of("\"\\`\n") == std::string_view::npos;
}

security::Token FromProto(const ::hadoop::common::TokenProto& token) {
  return security::Token{token.identifier(), token.password(), token.kind(), token.service()};
}

std::string DescribeContainerExit(int exit_status) {
  switch (exit_status) {
    case -100:
      return "container aborted by YARN (released, or its node was lost)";
    case -101:
      return "the node's local disks failed";
    case -102:
      return "container preempted by YARN";
    case -103:
      return "container killed by YARN for exceeding its virtual memory limit";
    case -104:
      return "container killed by YARN for exceeding its physical memory limit";
    case -105:
      return "container killed on the coordinator's request";
    case -106:
      return "container killed by the ResourceManager";
    case -107:
      return "container killed after the application completed";
    case -108:
      return "container killed by the NodeManager's container scheduler";
    case -109:
      return "container killed for writing too many logs";
    case -1000:
      return "container exit status unknown";
    default:
      return "";
  }
}

std::string_view ApplicationStateName(pb::YarnApplicationStateProto state) {
  switch (state) {
    case pb::NEW:
      return "NEW";
    case pb::NEW_SAVING:
      return "NEW_SAVING";
    case pb::SUBMITTED:
      return "SUBMITTED";
    case pb::ACCEPTED:
      return "ACCEPTED";
    case pb::RUNNING:
      return "RUNNING";
    case pb::FINISHED:
      return "FINISHED";
    case pb::FAILED:
      return "FAILED";
    case pb::KILLED:
      return "KILLED";
  }
  return "UNKNOWN";
}

std::string_view FinalStatusName(pb::FinalApplicationStatusProto status) {
  switch (status) {
    case pb::APP_UNDEFINED:
      return "UNDEFINED";
    case pb::APP_SUCCEEDED:
      return "SUCCEEDED";
    case pb::APP_FAILED:
      return "FAILED";
    case pb::APP_KILLED:
      return "KILLED";
    case pb::APP_ENDED:
      return "ENDED";
  }
  return "UNKNOWN";
}

bool IsTerminal(pb::YarnApplicationStateProto state) {
  return state == pb::FINISHED || state == pb::FAILED || state == pb::KILLED;
}

}  // namespace tony::hadoop::yarn
