#include "rpc/spec_file.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <utility>

#include "common/files.h"
#include "rpc/job_spec.pb.h"

namespace tony::rpc {
namespace {

spec::DistributedMode ToProto(DistributedMode m) {
  return m == DistributedMode::kFcfs ? spec::DISTRIBUTED_MODE_FCFS : spec::DISTRIBUTED_MODE_GANG;
}

spec::RestartPolicy ToProto(RestartPolicy p) {
  switch (p) {
    case RestartPolicy::kNever:
      return spec::RESTART_POLICY_NEVER;
    case RestartPolicy::kOnFailure:
      return spec::RESTART_POLICY_ON_FAILURE;
    case RestartPolicy::kExitCode:
      return spec::RESTART_POLICY_EXIT_CODE;
  }
  return spec::RESTART_POLICY_NEVER;
}

spec::RestartScope ToProto(RestartScope s) {
  return s == RestartScope::kTask ? spec::RESTART_SCOPE_TASK : spec::RESTART_SCOPE_GANG;
}

spec::OnStall ToProto(OnStall s) {
  switch (s) {
    case OnStall::kWarn:
      return spec::ON_STALL_WARN;
    case OnStall::kFail:
      return spec::ON_STALL_FAIL;
    case OnStall::kRestart:
      return spec::ON_STALL_RESTART;
  }
  return spec::ON_STALL_FAIL;
}

template <typename T>
void SetRepeated(const std::vector<T>& from, google::protobuf::RepeatedField<T>* to) {
  to->Add(from.begin(), from.end());
}

void SetRepeated(const std::vector<std::string>& from,
                 google::protobuf::RepeatedPtrField<std::string>* to) {
  for (const std::string& s : from) to->Add(std::string(s));
}

std::vector<std::string> FromRepeated(const google::protobuf::RepeatedPtrField<std::string>& from) {
  return {from.begin(), from.end()};
}

void SetResources(int64_t memory_mb, int vcores, int gpus, spec::Resources* r) {
  r->set_memory_mb(memory_mb);
  r->set_vcores(vcores);
  r->set_gpus(gpus);
}

void ToProto(const RoleSpec& r, spec::Role* p) {
  p->set_name(r.name);
  p->set_instances(r.instances);
  SetResources(r.memory_mb, r.vcores, r.gpus, p->mutable_resources());
  p->set_command(r.command);
  SetRepeated(r.resources, p->mutable_localized());
  p->set_node_label(r.node_label);
  p->set_docker_image(r.docker_image);
  p->set_untracked(r.untracked);
  p->set_sidecar(r.sidecar);
  p->set_stop_on_failure(r.stop_on_failure);
  p->set_nproc_per_task(r.nproc_per_task);
  p->set_stage(r.stage);
  p->set_preprocess(r.preprocess);
  p->set_serves_peers(r.serves_peers);
  p->set_awaits(r.awaits);
  p->set_restart_policy(ToProto(r.restart_policy));
  p->set_restart_scope(ToProto(r.restart_scope));
  p->set_max_restarts(r.max_restarts);
  SetRepeated(r.restart_exit_codes, p->mutable_restart_exit_codes());
  p->set_restart_backoff_ms(r.restart_backoff_ms);
  p->set_restart_backoff_max_ms(r.restart_backoff_max_ms);
  p->set_stall_timeout_ms(r.stall_timeout_ms);
  p->set_on_stall(ToProto(r.on_stall));
}

// A reader's enum conversions: proto3 keeps a value it does not know, which no JobSpec can hold.
Result<RestartPolicy> FromProto(spec::RestartPolicy p, const std::string& where) {
  switch (p) {
    case spec::RESTART_POLICY_NEVER:
      return RestartPolicy::kNever;
    case spec::RESTART_POLICY_ON_FAILURE:
      return RestartPolicy::kOnFailure;
    case spec::RESTART_POLICY_EXIT_CODE:
      return RestartPolicy::kExitCode;
    default:
      return InvalidArgument(where + ": unknown restart_policy " + std::to_string(p));
  }
}

Result<RestartScope> FromProto(spec::RestartScope s, const std::string& where) {
  switch (s) {
    case spec::RESTART_SCOPE_GANG:
      return RestartScope::kGang;
    case spec::RESTART_SCOPE_TASK:
      return RestartScope::kTask;
    default:
      return InvalidArgument(where + ": unknown restart_scope " + std::to_string(s));
  }
}

Result<OnStall> FromProto(spec::OnStall s, const std::string& where) {
  switch (s) {
    case spec::ON_STALL_FAIL:
      return OnStall::kFail;
    case spec::ON_STALL_WARN:
      return OnStall::kWarn;
    case spec::ON_STALL_RESTART:
      return OnStall::kRestart;
    default:
      return InvalidArgument(where + ": unknown on_stall " + std::to_string(s));
  }
}

Result<DistributedMode> FromProto(spec::DistributedMode m, const std::string& where) {
  switch (m) {
    case spec::DISTRIBUTED_MODE_GANG:
      return DistributedMode::kGang;
    case spec::DISTRIBUTED_MODE_FCFS:
      return DistributedMode::kFcfs;
    default:
      return InvalidArgument(where + ": unknown mode " + std::to_string(m));
  }
}

Result<RoleSpec> FromProto(const spec::Role& p, const std::string& source) {
  RoleSpec r;
  const std::string where = source + ", role " + p.name();
  r.name = p.name();
  r.instances = p.instances();
  r.memory_mb = p.resources().memory_mb();
  r.vcores = p.resources().vcores();
  r.gpus = p.resources().gpus();
  r.command = p.command();
  r.resources = FromRepeated(p.localized());
  r.node_label = p.node_label();
  r.docker_image = p.docker_image();
  r.untracked = p.untracked();
  r.sidecar = p.sidecar();
  r.stop_on_failure = p.stop_on_failure();
  r.nproc_per_task = p.nproc_per_task();
  r.stage = p.stage();
  r.preprocess = p.preprocess();
  r.serves_peers = p.serves_peers();
  r.awaits = p.awaits();
  TONY_ASSIGN_OR_RETURN(r.restart_policy, FromProto(p.restart_policy(), where));
  TONY_ASSIGN_OR_RETURN(r.restart_scope, FromProto(p.restart_scope(), where));
  r.max_restarts = p.max_restarts();
  r.restart_exit_codes.assign(p.restart_exit_codes().begin(), p.restart_exit_codes().end());
  r.restart_backoff_ms = p.restart_backoff_ms();
  r.restart_backoff_max_ms = p.restart_backoff_max_ms();
  r.stall_timeout_ms = p.stall_timeout_ms();
  TONY_ASSIGN_OR_RETURN(r.on_stall, FromProto(p.on_stall(), where));
  return r;
}

void ToProto(const GroupDependency& g, spec::GroupDependency* p) {
  p->set_role(g.role);
  p->set_group(g.group);
  SetRepeated(g.members, p->mutable_members());
  p->set_timeout_ms(g.timeout_ms);
  p->set_ignored(g.ignored);
  p->set_key(g.key);
}

GroupDependency FromProto(const spec::GroupDependency& p) {
  GroupDependency g;
  g.role = p.role();
  g.group = p.group();
  g.members = FromRepeated(p.members());
  g.timeout_ms = p.timeout_ms();
  g.ignored = p.ignored();
  g.key = p.key();
  return g;
}

// Deterministic: the same spec gives the same bytes (tests compare them).
std::string DeterministicBytes(const spec::JobSpecFile& f) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  f.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

// The spec file in `bytes`, refusing what is not a whole spec file of this tony's version.
Result<spec::JobSpecFile> ParseSpecFile(const std::string& bytes, const std::string& source) {
  spec::JobSpecFile f;
  if (!f.ParseFromString(bytes)) {
    return InvalidArgument(source + ": not a tony job spec file (it does not parse as " +
                           f.GetTypeName() + "); was it written by tony submit?");
  }
  // Every writer sets a version: none is a file cut short or not ours (an empty file parses).
  if (f.version() == 0) {
    return InvalidArgument(source + ": not a tony job spec file (it has no version: empty, cut " +
                           "short or not written by tony submit)");
  }
  if (f.version() != kJobSpecFileVersion) {
    return InvalidArgument(source + ": job spec file version " + std::to_string(f.version()) +
                           ", but this tony reads version " + std::to_string(kJobSpecFileVersion) +
                           " only (submit the job again with this tony)");
  }
  if (!f.complete()) {
    return InvalidArgument(source + ": the job spec file is cut short (its last field is missing)");
  }
  return f;
}

}  // namespace

std::string SerializeJobSpec(const JobSpec& s) {
  spec::JobSpecFile f;
  f.set_version(kJobSpecFileVersion);
  f.set_name(s.name);
  f.set_type(s.type);
  f.set_queue(s.queue);
  SetRepeated(s.tags, f.mutable_tags());
  f.set_view_acl(s.view_acl);
  f.set_modify_acl(s.modify_acl);
  f.set_framework(s.framework);
  f.set_mode(ToProto(s.mode));
  for (const RoleSpec& r : s.roles) ToProto(r, f.add_roles());
  f.set_application_timeout_ms(s.application_timeout_ms);
  f.set_registration_timeout_ms(s.registration_timeout_ms);
  f.set_allocation_timeout_ms(s.allocation_timeout_ms);
  f.set_gang_timeout_ms(s.gang_timeout_ms);
  f.set_heartbeat_interval_ms(s.heartbeat_interval_ms);
  f.set_max_missed_heartbeats(s.max_missed_heartbeats);
  f.set_metrics_interval_ms(s.metrics_interval_ms);
  f.set_execution_timeout_ms(s.execution_timeout_ms);
  f.set_client_wait_ms(s.client_wait_ms);
  f.set_execution_timeout_key(s.execution_timeout_key);
  f.set_error_message_max_depth(s.error_message_max_depth);
  f.set_registry_timeout_ms(s.registry_timeout_ms);
  f.set_fail_on_worker_failure(s.fail_on_worker_failure);
  for (const GroupDependency& g : s.group_dependencies) ToProto(g, f.add_group_dependencies());
  SetRepeated(s.container_envs, f.mutable_container_envs());
  SetRepeated(s.execution_envs, f.mutable_execution_envs());
  f.set_python_exec_path(s.python_exec_path);
  f.set_python_venv(s.python_venv);
  f.set_src_dir(s.src_dir);
  if (s.hold_port) f.set_hold_port(*s.hold_port);
  f.set_hadoop_archive(s.hadoop_archive);
  SetRepeated(s.hadoop_classpath, f.mutable_hadoop_classpath());
  f.set_horovod_debug_driver(s.horovod_debug_driver);
  f.set_skip_fit_check(s.skip_fit_check);
  SetResources(s.am_memory_mb, s.am_vcores, s.am_gpus, f.mutable_am());
  f.set_docker_enabled(s.docker_enabled);
  f.set_am_docker_image(s.am_docker_image);
  f.set_docker_mounts(s.docker_mounts);
  SetRepeated(s.am_resources, f.mutable_am_resources());
  f.set_local_memory_mb(s.local_memory_mb);
  f.set_local_vcores(s.local_vcores);
  f.set_gpu_exec_path(s.gpu_exec_path);
  f.set_chief_role(s.chief_role);
  f.set_chief_index(s.chief_index);
  f.mutable_sources()->insert(s.sources.begin(), s.sources.end());
  f.set_history_location(s.history_location);
  f.set_history_intermediate(s.history_intermediate);
  f.set_history_finished(s.history_finished);
  f.set_history_timezone(s.history_timezone);
  f.set_session_retries(s.session_retries);
  f.set_am_reconnect_window_ms(s.am_reconnect_window_ms);
  f.set_tensorboard_log_dir(s.tensorboard_log_dir);
  f.set_complete(true);
  return DeterministicBytes(f);
}

Result<JobSpec> ParseJobSpec(const std::string& bytes, const std::string& source) {
  TONY_ASSIGN_OR_RETURN(const spec::JobSpecFile f, ParseSpecFile(bytes, source));
  JobSpec s;
  s.name = f.name();
  s.type = f.type();
  s.queue = f.queue();
  s.tags = FromRepeated(f.tags());
  s.view_acl = f.view_acl();
  s.modify_acl = f.modify_acl();
  s.framework = f.framework();
  TONY_ASSIGN_OR_RETURN(s.mode, FromProto(f.mode(), source));
  for (const spec::Role& p : f.roles()) {
    TONY_ASSIGN_OR_RETURN(RoleSpec r, FromProto(p, source));
    s.roles.push_back(std::move(r));
  }
  s.application_timeout_ms = f.application_timeout_ms();
  s.registration_timeout_ms = f.registration_timeout_ms();
  s.allocation_timeout_ms = f.allocation_timeout_ms();
  s.gang_timeout_ms = f.gang_timeout_ms();
  s.heartbeat_interval_ms = f.heartbeat_interval_ms();
  s.max_missed_heartbeats = f.max_missed_heartbeats();
  s.metrics_interval_ms = f.metrics_interval_ms();
  s.execution_timeout_ms = f.execution_timeout_ms();
  s.client_wait_ms = f.client_wait_ms();
  s.execution_timeout_key = f.execution_timeout_key();
  s.error_message_max_depth = f.error_message_max_depth();
  s.registry_timeout_ms = f.registry_timeout_ms();
  s.history_location = f.history_location();
  s.history_intermediate = f.history_intermediate();
  s.history_finished = f.history_finished();
  s.history_timezone = f.history_timezone();
  s.session_retries = f.session_retries();
  s.am_reconnect_window_ms = f.am_reconnect_window_ms();
  s.tensorboard_log_dir = f.tensorboard_log_dir();
  s.fail_on_worker_failure = f.fail_on_worker_failure();
  for (const spec::GroupDependency& p : f.group_dependencies()) {
    s.group_dependencies.push_back(FromProto(p));
  }
  s.container_envs = FromRepeated(f.container_envs());
  s.execution_envs = FromRepeated(f.execution_envs());
  s.python_exec_path = f.python_exec_path();
  s.python_venv = f.python_venv();
  s.src_dir = f.src_dir();
  if (f.has_hold_port()) s.hold_port = f.hold_port();
  s.hadoop_archive = f.hadoop_archive();
  s.hadoop_classpath = FromRepeated(f.hadoop_classpath());
  s.horovod_debug_driver = f.horovod_debug_driver();
  s.skip_fit_check = f.skip_fit_check();
  s.am_memory_mb = f.am().memory_mb();
  s.am_vcores = f.am().vcores();
  s.am_gpus = f.am().gpus();
  s.docker_enabled = f.docker_enabled();
  s.am_docker_image = f.am_docker_image();
  s.docker_mounts = f.docker_mounts();
  s.am_resources = FromRepeated(f.am_resources());
  s.local_memory_mb = f.local_memory_mb();
  s.local_vcores = f.local_vcores();
  s.gpu_exec_path = f.gpu_exec_path();
  s.chief_role = f.chief_role();
  s.chief_index = f.chief_index();
  s.sources.insert(f.sources().begin(), f.sources().end());
  return s;
}

Status WriteJobSpecFile(const std::string& path, const JobSpec& spec) {
  return WriteFileAtomic(path, SerializeJobSpec(spec), 0600);
}

Result<JobSpec> ReadJobSpecFile(const std::string& path) {
  // Bounded: a spec is kilobytes; a huge file at this path is not one.
  auto bytes = ReadFileBounded(path, 64 << 20);
  if (!bytes.ok()) return bytes.status().WithContext("the job spec file");
  return ParseJobSpec(*bytes, path);
}

}  // namespace tony::rpc
