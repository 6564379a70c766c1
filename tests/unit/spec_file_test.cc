// The job spec file (rpc/spec_file.h): a JobSpec comes back from it equal, and a file that is
// missing, corrupt, cut short or of another version is refused with a message naming it.
#include "rpc/spec_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "common/files.h"
#include "config/configuration.h"
#include "config/job_spec.h"
#include "rpc/job_spec.pb.h"

namespace tony {

// Every field, so that a field the file loses shows here. A field added to these structs without
// a line here and in rpc/spec_file.cc trips the size checks below.
auto Fields(const RoleSpec& r) {
  return std::tie(r.name, r.instances, r.memory_mb, r.vcores, r.gpus, r.command, r.resources,
                  r.node_label, r.docker_image, r.untracked, r.sidecar, r.stop_on_failure,
                  r.nproc_per_task, r.stage, r.preprocess, r.serves_peers, r.awaits,
                  r.restart_policy, r.restart_scope, r.max_restarts, r.restart_exit_codes,
                  r.restart_backoff_ms, r.restart_backoff_max_ms, r.stall_timeout_ms, r.on_stall);
}
bool operator==(const RoleSpec& a, const RoleSpec& b) { return Fields(a) == Fields(b); }

auto Fields(const GroupDependency& g) {
  return std::tie(g.role, g.group, g.members, g.timeout_ms, g.ignored, g.key);
}
bool operator==(const GroupDependency& a, const GroupDependency& b) {
  return Fields(a) == Fields(b);
}

// In two halves: std::tie of 50 references is more than the tuple comparison wants to expand.
auto JobFields(const JobSpec& s) {
  return std::tie(s.name, s.type, s.queue, s.tags, s.view_acl, s.modify_acl, s.framework, s.mode,
                  s.roles, s.application_timeout_ms, s.registration_timeout_ms,
                  s.allocation_timeout_ms, s.gang_timeout_ms, s.heartbeat_interval_ms,
                  s.max_missed_heartbeats, s.session_retries, s.am_reconnect_window_ms,
                  s.metrics_interval_ms, s.execution_timeout_ms, s.client_wait_ms,
                  s.execution_timeout_key, s.error_message_max_depth, s.registry_timeout_ms,
                  s.fail_on_worker_failure, s.group_dependencies);
}
auto MoreJobFields(const JobSpec& s) {
  return std::tie(s.container_envs, s.execution_envs, s.python_exec_path, s.python_venv, s.src_dir,
                  s.hold_port, s.hadoop_archive, s.hadoop_classpath, s.horovod_debug_driver,
                  s.skip_fit_check, s.am_memory_mb, s.am_vcores, s.am_gpus, s.docker_enabled,
                  s.am_docker_image, s.docker_mounts, s.am_resources, s.local_memory_mb,
                  s.local_vcores, s.gpu_exec_path, s.chief_role, s.chief_index, s.sources,
                  s.history_location, s.history_intermediate, s.history_finished,
                  s.history_timezone, s.tensorboard_log_dir);
}
bool operator==(const JobSpec& a, const JobSpec& b) {
  return JobFields(a) == JobFields(b) && MoreJobFields(a) == MoreJobFields(b);
}

// The sizes on this build's platform (x86-64 / aarch64, libstdc++). A new field changes them:
// serialize it (rpc/job_spec.proto, rpc/spec_file.cc), compare it above, then update these.
static_assert(sizeof(RoleSpec) == 328, "a RoleSpec field the job spec file may not carry");
static_assert(sizeof(GroupDependency) == 136, "a GroupDependency field the file may not carry");
static_assert(sizeof(JobSpec) == 1032, "a JobSpec field the job spec file may not carry");

namespace {

using ::testing::HasSubstr;

// Every field set to something other than its default.
JobSpec EveryField() {
  JobSpec s;
  s.name = "n";
  s.type = "t";
  s.queue = "q";
  s.tags = {"a", "b"};
  s.view_acl = "alice";
  s.modify_acl = "bob";
  s.framework = "pytorch";
  s.mode = DistributedMode::kFcfs;
  RoleSpec r;
  r.name = "worker";
  r.instances = 3;
  r.memory_mb = 4096;
  r.vcores = 2;
  r.gpus = 1;
  r.command = "python train.py";
  r.resources = {"/data::d", "hdfs:///x#archive"};
  r.node_label = "gpu";
  r.docker_image = "img";
  r.untracked = true;
  r.sidecar = true;
  r.stop_on_failure = true;
  r.nproc_per_task = 4;
  r.stage = 1;
  r.preprocess = true;
  r.serves_peers = "it serves";
  r.awaits = "ps:0";
  r.restart_policy = RestartPolicy::kExitCode;
  r.restart_scope = RestartScope::kTask;
  r.max_restarts = 7;
  r.restart_exit_codes = {3, 4};
  r.restart_backoff_ms = 5;
  r.restart_backoff_max_ms = 6;
  r.stall_timeout_ms = 8;
  r.on_stall = OnStall::kRestart;
  s.roles = {r};
  r.name = "ps";
  r.on_stall = OnStall::kWarn;
  r.restart_policy = RestartPolicy::kOnFailure;
  s.roles.push_back(r);
  s.application_timeout_ms = 11;
  s.registration_timeout_ms = 12;
  s.allocation_timeout_ms = 13;
  s.gang_timeout_ms = 14;
  s.heartbeat_interval_ms = 15;
  s.max_missed_heartbeats = 16;
  s.metrics_interval_ms = 160;
  s.session_retries = 2;
  s.am_reconnect_window_ms = 120'000;
  s.execution_timeout_ms = 17;
  s.client_wait_ms = 18;
  s.execution_timeout_key = "tony.worker.timeout";
  s.error_message_max_depth = 19;
  s.registry_timeout_ms = 20'000;
  s.history_location = "/h";
  s.history_intermediate = "/h/running";
  s.history_finished = "/done";
  s.history_timezone = "Asia/Tokyo";
  s.tensorboard_log_dir = "hdfs:///tb/job";
  s.fail_on_worker_failure = false;
  s.group_dependencies = {{"worker", "g", {"ps", "chief"}, 21, true, "tony.application.x"}};
  s.container_envs = {"A=1"};
  s.execution_envs = {"B=2", "C"};
  s.python_exec_path = "/usr/bin/python3";
  s.python_venv = "venv.zip";
  s.src_dir = "src";
  s.hold_port = false;  // set, and to the value an unset optional<bool> would read as
  s.hadoop_archive = "hadoop";
  s.hadoop_classpath = {"hadoop/etc"};
  s.horovod_debug_driver = true;
  s.skip_fit_check = true;
  s.am_memory_mb = 22;
  s.am_vcores = 23;
  s.am_gpus = 24;
  s.docker_enabled = true;
  s.am_docker_image = "am-img";
  s.docker_mounts = "/a:/a:ro";
  s.am_resources = {"/r"};
  s.local_memory_mb = 25;
  s.local_vcores = 26;
  s.gpu_exec_path = "/bin/smi";
  s.chief_role = "worker";
  s.chief_index = 2;
  s.sources = {{"tony.worker.instances", "/home/u/tony.xml"}, {"tony.ps.memory", "--conf"}};
  return s;
}

class SpecFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::string> dir = MakeTempDir(::testing::TempDir(), "spec_file_test.");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_ = *dir;
  }
  void TearDown() override {
    Status s = RemoveAll(dir_);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  std::string Write(const std::string& bytes) {
    std::string path = JoinPath(dir_, rpc::kJobSpecFileName);
    Status s = WriteFileAtomic(path, bytes);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return path;
  }
  std::string dir_;
};

TEST_F(SpecFileTest, EveryFieldComesBackEqual) {
  const JobSpec spec = EveryField();
  std::string path = JoinPath(dir_, rpc::kJobSpecFileName);
  ASSERT_TRUE(rpc::WriteJobSpecFile(path, spec).ok());
  Result<JobSpec> back = rpc::ReadJobSpecFile(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == spec);
  EXPECT_EQ(rpc::SerializeJobSpec(*back), rpc::SerializeJobSpec(spec));
}

TEST_F(SpecFileTest, DefaultsAndUnsetOptionalComeBackEqual) {
  JobSpec spec;
  Result<JobSpec> back = rpc::ParseJobSpec(rpc::SerializeJobSpec(spec), "mem");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == spec);
  EXPECT_FALSE(back->hold_port.has_value());
}

TEST_F(SpecFileTest, ASpecBuiltFromKeysComesBackEqual) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.worker.instances", "2", "--conf");
  conf.Set("tony.ps.instances", "1", "--conf");
  conf.Set("tony.containers.command", "python train.py", "--executes");
  conf.Set("tony.execution.envs", "X=1,Y=2", "--conf");
  conf.Set("tony.worker.restart-policy", "on-failure", "--conf");
  conf.Set("tony.task.executor.registry-timeout-sec", "30", "--conf");
  Result<JobSpec> spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->registry_timeout_ms, 30'000);
  EXPECT_EQ(spec->KeyAndSource("tony.ps.instances"), "tony.ps.instances, from --conf");
  EXPECT_EQ(spec->KeyAndSource("tony.ps.memory"), "tony.ps.memory");  // its default
  EXPECT_EQ(spec->sources.count("tony.application.timeout"), 0u);
  Result<JobSpec> back = rpc::ParseJobSpec(rpc::SerializeJobSpec(*spec), "mem");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == *spec);
}

TEST_F(SpecFileTest, AMissingFileIsNamed) {
  std::string path = JoinPath(dir_, "nothing-here.pb");
  Result<JobSpec> back = rpc::ReadJobSpecFile(path);
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.status().message(), HasSubstr("job spec file"));
  EXPECT_THAT(back.status().message(), HasSubstr(path));
}

TEST_F(SpecFileTest, GarbageIsRefusedNamingTheFile) {
  std::string path = Write("<configuration>\xff\xff\xff\xff not protobuf");
  Result<JobSpec> back = rpc::ReadJobSpecFile(path);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(back.status().message(), HasSubstr(path + ": not a tony job spec file"));
}

TEST_F(SpecFileTest, AnEmptyFileIsRefused) {
  std::string path = Write("");
  Result<JobSpec> back = rpc::ReadJobSpecFile(path);
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.status().message(), HasSubstr(path + ": not a tony job spec file"));
}

TEST_F(SpecFileTest, AFileCutShortIsRefused) {
  const std::string bytes = rpc::SerializeJobSpec(EveryField());
  // Every cut: one inside a field does not parse, one at a field's end lacks `complete`.
  for (size_t n = 1; n < bytes.size(); ++n) {
    Result<JobSpec> back = rpc::ParseJobSpec(bytes.substr(0, n), "cut");
    EXPECT_FALSE(back.ok()) << "cut at " << n << " of " << bytes.size();
  }
}

TEST_F(SpecFileTest, AnotherVersionIsRefusedNamingBoth) {
  spec::JobSpecFile f;
  f.set_version(rpc::kJobSpecFileVersion + 1);
  f.set_complete(true);
  std::string path = Write(f.SerializeAsString());
  Result<JobSpec> back = rpc::ReadJobSpecFile(path);
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.status().message(),
              HasSubstr(path + ": job spec file version " +
                        std::to_string(rpc::kJobSpecFileVersion + 1) + ", but this tony reads " +
                        "version " + std::to_string(rpc::kJobSpecFileVersion) + " only"));
}

TEST_F(SpecFileTest, AnUnknownEnumValueIsRefused) {
  spec::JobSpecFile f;
  f.set_version(rpc::kJobSpecFileVersion);
  f.set_complete(true);
  spec::Role* role = f.add_roles();
  role->set_name("worker");
  role->set_restart_policy(static_cast<spec::RestartPolicy>(42));
  Result<JobSpec> back = rpc::ParseJobSpec(f.SerializeAsString(), "f.pb");
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.status().message(), HasSubstr("f.pb, role worker: unknown restart_policy 42"));
}

}  // namespace
}  // namespace tony
