// YARN records: id strings, resources, local resources, launch contexts and exit statuses
// (docs/hadoop-ipc.md §4.2). Thin helpers over the generated hadoop.yarn messages.
// Thread-safety: plain functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "hadoop/security/credentials.h"
#include "yarn_protos.pb.h"

namespace tony::hadoop::yarn {

namespace pb = ::hadoop::yarn;

// §4.2 id strings: application_<ts>_<id ≥4 digits>, appattempt_<ts>_<app ≥4>_<attempt ≥6>,
// container_[e<epoch ≥2>_]<ts>_<app ≥4>_<attempt ≥2>_<seq ≥6>.
std::string ApplicationIdString(const pb::ApplicationIdProto& id);
std::string AttemptIdString(const pb::ApplicationAttemptIdProto& id);
std::string ContainerIdString(const pb::ContainerIdProto& id);
Result<pb::ApplicationIdProto> ParseApplicationId(std::string_view text);
Result<pb::ContainerIdProto> ParseContainerId(std::string_view text);

// Memory (MB), vcores and the countable type yarn.io/gpu (§4.2 ResourceProto).
inline constexpr std::string_view kGpuResource = "yarn.io/gpu";
struct Resource {
  int64_t memory_mb = 0;
  int vcores = 0;
  int64_t gpus = 0;
};
pb::ResourceProto ToProto(const Resource& r);
Resource FromProto(const pb::ResourceProto& r);
std::string ToString(const Resource& r);

// A LocalResource for a file in a Hadoop FileSystem (§4.2, §6): the NameNode RPC address from
// fs.defaultFS, the absolute path, and the exact size and modification time the NM checks (§5).
struct RemoteFile {
  std::string scheme = "hdfs";
  std::string host;
  int port = 0;
  std::string path;
  int64_t size = 0;
  int64_t modification_time = 0;
};
pb::LocalResourceProto MakeLocalResource(
    const RemoteFile& file, pb::LocalResourceTypeProto type = pb::FILE,
    pb::LocalResourceVisibilityProto visibility = pb::APPLICATION);

void AddLocalResource(pb::ContainerLaunchContextProto* ctx, const std::string& name,
                      const pb::LocalResourceProto& resource);
void AddEnvironment(pb::ContainerLaunchContextProto* ctx, const std::string& key,
                    const std::string& value);
// Asks the NodeManager to run the container in a Docker image (YARN's Docker runtime, Hadoop
// 3.x: YARN_CONTAINER_RUNTIME_TYPE=docker, _DOCKER_IMAGE, and _DOCKER_MOUNTS when `mounts` is
// not empty), as TonY does with tony.docker.enabled. Only a NodeManager with the
// LinuxContainerExecutor and Docker allowed acts on it; others run the command as usual.
void AddDockerRuntime(pb::ContainerLaunchContextProto* ctx, const std::string& image,
                      const std::string& mounts);
// The credentials stream (§3) for ContainerLaunchContextProto.tokens.
void SetTokens(pb::ContainerLaunchContextProto* ctx, const security::Credentials& credentials);
// A value the NM can put into `export KEY="value"` unchanged (§5: no double quotes, no
// backslashes, no backquotes, no newlines).
bool IsSafeEnvironmentValue(std::string_view value);

security::Token FromProto(const ::hadoop::common::TokenProto& token);

// §4.2 ContainerExitStatus: a phrase for the YARN-specific (negative) codes, empty otherwise.
std::string DescribeContainerExit(int exit_status);

std::string_view ApplicationStateName(pb::YarnApplicationStateProto state);
std::string_view FinalStatusName(pb::FinalApplicationStatusProto status);
bool IsTerminal(pb::YarnApplicationStateProto state);

}  // namespace tony::hadoop::yarn
