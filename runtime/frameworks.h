// The registered frameworks' constructors (one per runtime/<framework>.cc) and helpers they share;
// internal to runtime/, used by runtime/registry.cc.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "config/job_spec.h"
#include "config/key_names.h"
#include "runtime/framework.h"

namespace tony::runtime {

std::unique_ptr<Framework> MakeTensorFlow();  // runtime/tensorflow.cc
std::unique_ptr<Framework> MakePyTorch();     // runtime/pytorch.cc
std::unique_ptr<Framework> MakeHorovod();     // runtime/horovod.cc
std::unique_ptr<Framework> MakeMxnet();       // runtime/mxnet.cc
std::unique_ptr<Framework> MakeJax();         // runtime/jax.cc
std::unique_ptr<Framework> MakeStandalone();  // runtime/generic.cc
std::unique_ptr<Framework> MakeGeneric();     // runtime/generic.cc

// "tony.application.framework = <name>", how a framework's refusals begin.
std::string FrameworkIs(std::string_view name);
// tony.<role>.instances's name for `role`.
inline std::string InstancesKey(std::string_view role) {
  return keys::ForRole(keys::kRoleInstances, role);
}
// tony.<role>.instances, 0 for a role the job does not have.
int Instances(const JobSpec& spec, const std::string& role);
// tony.<role>.nproc-per-task, at least 1.
int NprocPerTask(const JobSpec& spec, const std::string& role);
// PyTorch and JAX form a process group of the chief/master and the workers: one must exist.
Status NeedProcessGroupRoot(const JobSpec& spec);
// A sidecar role (tony.application.sidecar.jobtypes, or TonY's "tensorboard"): no part of the
// framework's cluster.
bool IsSidecar(const JobSpec& spec, const std::string& role);
// dump() throws on bytes that are not UTF-8; the addresses come from peers, so such bytes become
// U+FFFD instead (a bad address fails where it is used, with its own error).
std::string DumpJson(const nlohmann::json& j);

}  // namespace tony::runtime
