// Env contracts of the framework runtimes: the exact variables each task gets, per role and index,
// and the framework-specific shape checks made before a job starts.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "runtime/peers.h"
#include "runtime/runtime.h"
#include "tests/unit/runtime_test_util.h"

namespace tony::runtime {
namespace {

using testing::Role;
using testing::Spec;

// The variables BuildTaskEnv adds on top of TonY's common ones.
EnvMap FrameworkVariables(const JobSpec& spec, const Cluster& cluster, const std::string& role,
                          int index) {
  TaskEnvInput in;
  in.spec = &spec;
  in.job_id = "job-1";
  in.role = role;
  in.index = index;
  in.cluster = cluster;
  Result<EnvMap> env = BuildTaskEnv(in);
  EXPECT_TRUE(env.ok()) << env.status().message();
  if (!env.ok()) return {};
  EnvMap extra;
  EnvMap common = CommonTaskEnv(in);
  for (const auto& [k, v] : *env) {
    if (common.count(k) == 0) extra[k] = v;
  }
  return extra;
}

std::string ErrorOf(const JobSpec& spec) {
  Status s = ValidateForFramework(spec);
  return s.ok() ? "" : s.message();
}

// --- JAX ---------------------------------------------------------------------------------------

TEST(JaxEnvTest, EveryProcessGetsJaxAndKubeflowVariables) {
  JobSpec spec = Spec("jax", {Role("worker", 3)}, "worker");
  Cluster cluster = {{"worker", {"10.0.0.1:4000", "10.0.0.2:4001", "10.0.0.3:4002"}}};
  std::string spec_json = ClusterSpecJson(cluster);
  for (int i = 0; i < 3; ++i) {
    std::string id = std::to_string(i);
    EXPECT_EQ(FrameworkVariables(spec, cluster, "worker", i),
              (EnvMap{{"CLUSTER_SPEC", spec_json},
                      {"JAX_COORDINATOR_ADDRESS", "10.0.0.1:4000"},
                      {"JAX_COORDINATOR_PORT", "4000"},
                      {"JAX_NUM_PROCESSES", "3"},
                      {"JAX_PROCESS_COUNT", "3"},
                      {"JAX_PROCESS_ID", id},
                      {"JAX_PROCESS_INDEX", id},
                      {"COORDINATOR_ADDRESS", "10.0.0.1"},
                      {"COORDINATOR_PORT", "4000"},
                      {"NUM_PROCESSES", "3"},
                      {"PROCESS_ID", id}}))
        << "worker " << i;
  }
}

TEST(JaxEnvTest, ChiefIsProcessZeroAndOtherRolesAreNotProcesses) {
  JobSpec spec = Spec("jax", {Role("chief", 1), Role("worker", 2), Role("db", 1, true)}, "chief");
  Cluster cluster = {{"chief", {"c:10"}}, {"db", {"d:13"}}, {"worker", {"w0:11", "w1:12"}}};
  EnvMap chief = FrameworkVariables(spec, cluster, "chief", 0);
  EXPECT_EQ(chief.at("JAX_COORDINATOR_ADDRESS"), "c:10");
  EXPECT_EQ(chief.at("JAX_PROCESS_ID"), "0");
  EXPECT_EQ(chief.at("JAX_NUM_PROCESSES"), "3");
  EnvMap worker1 = FrameworkVariables(spec, cluster, "worker", 1);
  EXPECT_EQ(worker1.at("JAX_PROCESS_ID"), "2");
  EXPECT_EQ(worker1.at("COORDINATOR_ADDRESS"), "c");
  // A helper role learns where the coordinator is but is not one of the processes.
  EnvMap db = FrameworkVariables(spec, cluster, "db", 0);
  EXPECT_EQ(db.at("JAX_COORDINATOR_ADDRESS"), "c:10");
  EXPECT_EQ(db.count("JAX_PROCESS_ID"), 0u);
  EXPECT_EQ(db.count("PROCESS_ID"), 0u);
}

TEST(JaxEnvTest, MalformedCoordinatorAddressIsAnError) {
  JobSpec spec = Spec("jax", {Role("worker", 1)}, "worker");
  TaskEnvInput in;
  in.spec = &spec;
  in.role = "worker";
  in.cluster = {{"worker", {"no-port"}}};
  Result<EnvMap> env = JaxEnv(in);
  ASSERT_FALSE(env.ok());
  EXPECT_NE(env.status().message().find("no-port"), std::string::npos);
}

// --- MXNet -------------------------------------------------------------------------------------

TEST(MxnetEnvTest, SchedulerServersAndWorkersGetDmlcVariables) {
  JobSpec spec =
      Spec("mxnet", {Role("scheduler", 1), Role("server", 2), Role("worker", 3)}, "worker");
  Cluster cluster = {{"scheduler", {"127.0.0.1:9091"}},
                     {"server", {"127.0.0.1:9092", "127.0.0.1:9093"}},
                     {"worker", {"127.0.0.1:9094", "127.0.0.1:9095", "127.0.0.1:9096"}}};
  for (const auto& [role, count] :
       std::vector<std::pair<std::string, int>>{{"scheduler", 1}, {"server", 2}, {"worker", 3}}) {
    for (int i = 0; i < count; ++i) {
      EXPECT_EQ(FrameworkVariables(spec, cluster, role, i),
                (EnvMap{{"CLUSTER_SPEC", ClusterSpecJson(cluster)},
                        {"DMLC_ROLE", role},
                        {"DMLC_PS_ROOT_URI", "127.0.0.1"},
                        {"DMLC_PS_ROOT_PORT", "9091"},
                        {"DMLC_NUM_SERVER", "2"},
                        {"DMLC_NUM_WORKER", "3"},
                        {"DMLC_LOCAL", "0"}}))
          << role << " " << i;
    }
  }
}

TEST(MxnetEnvTest, SchedulerHostIsResolvedToAnIpAddress) {
  JobSpec spec =
      Spec("mxnet", {Role("scheduler", 1), Role("server", 1), Role("worker", 1)}, "worker");
  Cluster cluster = {
      {"scheduler", {"localhost:7000"}}, {"server", {"localhost:7001"}}, {"worker", {"w:7002"}}};
  EnvMap env = FrameworkVariables(spec, cluster, "worker", 0);
  EXPECT_EQ(env.at("DMLC_PS_ROOT_URI"), "127.0.0.1");
  EXPECT_EQ(env.at("DMLC_PS_ROOT_PORT"), "7000");
}

TEST(MxnetEnvTest, MissingOrMalformedSchedulerIsAnError) {
  JobSpec spec =
      Spec("mxnet", {Role("scheduler", 1), Role("server", 1), Role("worker", 1)}, "worker");
  TaskEnvInput in;
  in.spec = &spec;
  in.role = "worker";
  in.cluster = {{"scheduler", {"no-port"}}, {"worker", {"127.0.0.1:1"}}};
  Result<EnvMap> env = MxnetEnv(in);
  ASSERT_FALSE(env.ok());
  EXPECT_NE(env.status().message().find("no-port"), std::string::npos);
  in.cluster.erase("scheduler");
  env = MxnetEnv(in);
  ASSERT_FALSE(env.ok());
  EXPECT_NE(env.status().message().find("tony.scheduler.instances"), std::string::npos);
}

// --- Horovod -----------------------------------------------------------------------------------

TEST(HorovodEnvTest, WorkersGetGlooLauncherVariablesWithWorkerZeroAsRendezvous) {
  JobSpec spec = Spec("horovod", {Role("worker", 2)}, "worker");
  Cluster cluster = {{"worker", {"hostA:5000", "hostA:5001"}}};
  for (int i = 0; i < 2; ++i) {
    std::string r = std::to_string(i);
    EXPECT_EQ(FrameworkVariables(spec, cluster, "worker", i),
              (EnvMap{{"CLUSTER_SPEC", ClusterSpecJson(cluster)},
                      {"HOROVOD_CONTROLLER", "gloo"},
                      {"HOROVOD_CPU_OPERATIONS", "gloo"},
                      {"HOROVOD_GLOO_TIMEOUT_SECONDS", "2000"},
                      {"HOROVOD_GLOO_RENDEZVOUS_ADDR", "hostA"},
                      {"HOROVOD_GLOO_RENDEZVOUS_PORT", "5000"},
                      {"HOROVOD_HOSTNAME", "hostA"},
                      {"HOROVOD_RANK", r},
                      {"HOROVOD_SIZE", "2"},
                      {"HOROVOD_LOCAL_RANK", r},
                      {"HOROVOD_LOCAL_SIZE", "2"},
                      {"HOROVOD_CROSS_RANK", "0"},
                      {"HOROVOD_CROSS_SIZE", "1"}}))
        << "worker " << i;
  }
}

TEST(HorovodEnvTest, SlotsFollowHorovodHostAssignmentAcrossHosts) {
  // Workers interleaved over two hosts: horovod numbers ranks host by host, in the order the
  // hosts first appear, so worker 1 (the first on h2) is rank 2.
  std::vector<std::string> workers = {"h1:1", "h2:2", "h1:3"};
  std::vector<HorovodSlot> slots = HorovodSlots(workers);
  ASSERT_EQ(slots.size(), 3u);
  auto expect = [&](int task, int rank, int local_rank, int local_size, int cross_rank,
                    int cross_size) {
    const HorovodSlot& s = slots[task];
    EXPECT_EQ(s.rank, rank) << "task " << task;
    EXPECT_EQ(s.size, 3) << "task " << task;
    EXPECT_EQ(s.local_rank, local_rank) << "task " << task;
    EXPECT_EQ(s.local_size, local_size) << "task " << task;
    EXPECT_EQ(s.cross_rank, cross_rank) << "task " << task;
    EXPECT_EQ(s.cross_size, cross_size) << "task " << task;
  };
  expect(0, 0, 0, 2, 0, 2);  // h1 slot 0; local rank 0 exists on h1 and h2
  expect(1, 2, 0, 1, 1, 2);  // h2 slot 0
  expect(2, 1, 1, 2, 0, 1);  // h1 slot 1; only h1 has a local rank 1
  EXPECT_EQ(slots[1].hostname, "h2");
  EXPECT_EQ(HorovodWorkerList(workers), "h1:2,h2:1");
}

TEST(HorovodEnvTest, DriverHostsRendezvousAndGetsTheWorkerList) {
  JobSpec spec = Spec("horovod", {Role("driver", 1, true), Role("worker", 3)}, "worker");
  Cluster cluster = {{"driver", {"d:6000"}}, {"worker", {"h1:1", "h2:2", "h1:3"}}};
  EXPECT_EQ(FrameworkVariables(spec, cluster, "driver", 0),
            (EnvMap{{"CLUSTER_SPEC", ClusterSpecJson(cluster)},
                    {"CLUSTER_WORKER_LIST", "h1:2,h2:1"},
                    {"DRIVER_OUTPUT_PATH",
                     (std::filesystem::current_path() / "horovod_driver_output").string()}}));
  EnvMap w1 = FrameworkVariables(spec, cluster, "worker", 1);
  EXPECT_EQ(w1.at("HOROVOD_GLOO_RENDEZVOUS_ADDR"), "d");
  EXPECT_EQ(w1.at("HOROVOD_GLOO_RENDEZVOUS_PORT"), "6000");
  EXPECT_EQ(w1.at("HOROVOD_RANK"), "2");
  EXPECT_EQ(w1.at("HOROVOD_HOSTNAME"), "h2");
  EXPECT_EQ(w1.at("HOROVOD_CROSS_RANK"), "1");
}

// TonY's debug driver chose its own port and plan (numbers as strings, as TonY's fake plan has
// them): the workers use both, each taking the slot of its position among its host's workers.
TEST(HorovodEnvTest, DebugDriverWorkersUseThePublishedPortAndSlotPlan) {
  JobSpec spec = Spec("horovod", {Role("driver", 1, true), Role("worker", 3)}, "worker");
  spec.horovod_debug_driver = true;
  TaskEnvInput in;
  in.spec = &spec;
  in.role = "worker";
  in.index = 2;  // the second worker on h1
  in.cluster = {{"driver", {"d:6000"}}, {"worker", {"h1:1", "h2:2", "h1:3"}}};
  const std::string plan =
      R"([{"hostname":"h1","rank":"7","localRank":"1","crossRank":"0","size":"9",)"
      R"("localSize":"2","crossSize":"1"},)"
      R"({"hostname":"h2","rank":5,"localRank":0,"crossRank":1,"size":9,"localSize":1,)"
      R"("crossSize":2},)"
      R"({"hostname":"h1","rank":"6","localRank":"0","crossRank":"0","size":"9",)"
      R"("localSize":"2","crossSize":"2"}])";
  in.published["driver:0"] = PublishedEndpoint{"d:41234", plan, 0};
  Result<EnvMap> env = BuildTaskEnv(in);
  ASSERT_TRUE(env.ok()) << env.status().message();
  EXPECT_EQ(env->at("HOROVOD_GLOO_RENDEZVOUS_ADDR"), "d");
  EXPECT_EQ(env->at("HOROVOD_GLOO_RENDEZVOUS_PORT"), "41234");
  EXPECT_EQ(env->at("HOROVOD_RANK"), "7");
  EXPECT_EQ(env->at("HOROVOD_LOCAL_RANK"), "1");
  EXPECT_EQ(env->at("HOROVOD_SIZE"), "9");
  EXPECT_EQ(env->at("HOROVOD_HOSTNAME"), "h1");
  in.index = 0;  // the first on h1: local rank 0
  EXPECT_EQ(BuildTaskEnv(in)->at("HOROVOD_RANK"), "6");

  // A plan with no slot for this worker, and no plan at all, are errors that say so.
  in.published["driver:0"].info =
      R"([{"hostname":"h2","rank":0,"localRank":0,"crossRank":0,"size":1,"localSize":1,)"
      R"("crossSize":1}])";
  Result<EnvMap> none = BuildTaskEnv(in);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("0 slot(s) on host h1, none for worker:0"),
            std::string::npos)
      << none.status().message();
  in.published["driver:0"].info = R"([{"hostname":"h1"}])";
  Result<EnvMap> bad = BuildTaskEnv(in);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("slot 0 has no number \"rank\""), std::string::npos)
      << bad.status().message();
  in.published.clear();
  Result<EnvMap> unpublished = BuildTaskEnv(in);
  ASSERT_FALSE(unpublished.ok());
  EXPECT_NE(unpublished.status().message().find("driver:0 published no rendezvous"),
            std::string::npos);
}

// --- Other runtimes through BuildTaskEnv -------------------------------------------------------

TEST(BuildTaskEnvTest, TensorFlowPsStrategyTasksSeeTheWholeTrainingCluster) {
  JobSpec spec =
      Spec("tensorflow", {Role("chief", 1), Role("ps", 1, true), Role("worker", 2)}, "chief");
  Cluster cluster = {{"chief", {"c:1"}}, {"ps", {"p:2"}}, {"worker", {"w0:3", "w1:4"}}};
  for (const auto& [role, index] :
       std::vector<std::pair<std::string, int>>{{"chief", 0}, {"ps", 0}, {"worker", 1}}) {
    EnvMap env = FrameworkVariables(spec, cluster, role, index);
    EXPECT_EQ(env.size(), 3u);
    EXPECT_EQ(env.at("TF_GRPC_REUSE_PORT"), "true");  // each server shares its held port
    auto tf = nlohmann::json::parse(env.at("TF_CONFIG"));
    EXPECT_EQ(tf, nlohmann::json::parse(R"({"cluster":{"chief":["c:1"],"ps":["p:2"],)"
                                        R"("worker":["w0:3","w1:4"]},"task":{"type":")" +
                                        role + R"(","index":)" + std::to_string(index) + "}}"));
  }
}

TEST(BuildTaskEnvTest, StandaloneAddsNothingAndGenericOnlyTheClusterSpec) {
  JobSpec standalone = Spec("standalone", {Role("worker", 1)}, "worker");
  Cluster cluster = {{"worker", {"w:1"}}};
  EXPECT_TRUE(FrameworkVariables(standalone, cluster, "worker", 0).empty());
  JobSpec generic = Spec("generic", {Role("worker", 1)}, "worker");
  EXPECT_EQ(FrameworkVariables(generic, cluster, "worker", 0),
            (EnvMap{{"CLUSTER_SPEC", R"({"worker":["w:1"]})"}}));
}

TEST(BuildTaskEnvTest, PyTorchTwoWorkersExactVariables) {
  JobSpec spec = Spec("pytorch", {Role("worker", 2)}, "worker");
  Cluster cluster = {{"worker", {"m:29500", "b:2"}}};
  EXPECT_EQ(FrameworkVariables(spec, cluster, "worker", 1),
            (EnvMap{{"MASTER_ADDR", "m"},
                    {"MASTER_PORT", "29500"},
                    {"WORLD_SIZE", "2"},
                    {"WORLD", "2"},
                    {"INIT_METHOD", "tcp://m:29500"},
                    {"RANK", "1"},
                    {"LOCAL_RANK", "0"},
                    {"LOCAL_WORLD_SIZE", "1"},
                    {"GROUP_RANK", "1"},
                    {"GROUP_WORLD_SIZE", "2"},
                    {"ROLE_RANK", "1"},
                    {"ROLE_WORLD_SIZE", "2"},
                    {"NODE_RANK", "1"},
                    {"TORCHELASTIC_RESTART_COUNT", "0"},
                    {"TORCHELASTIC_MAX_RESTARTS", "0"}}));
}

TEST(BuildTaskEnvTest, PyTorchRestartedTaskSeesTorchrunsRestartCount) {
  RoleSpec worker = Role("worker", 2);
  worker.restart_policy = RestartPolicy::kOnFailure;
  worker.max_restarts = 5;
  JobSpec spec = Spec("pytorch", {worker}, "worker");
  TaskEnvInput in;
  in.spec = &spec;
  in.cluster = {{"worker", {"m:29500", "b:2"}}};
  in.role = "worker";
  in.index = 1;
  in.attempt = 2;
  Result<EnvMap> env = PyTorchEnv(in);
  ASSERT_TRUE(env.ok()) << env.status().message();
  EXPECT_EQ(env->at("TORCHELASTIC_RESTART_COUNT"), "2");
  EXPECT_EQ(env->at("TORCHELASTIC_MAX_RESTARTS"), "5");
}

TEST(BuildTaskEnvTest, PyTorchNprocPerTaskFollowsTorchrunNumbering) {
  // A chief and 2 workers, each task a torchrun node of 2 local processes: 6 ranks, numbered task
  // by task (chief first), local rank by local rank.
  RoleSpec chief = Role("chief", 1);
  RoleSpec worker = Role("worker", 2);
  chief.nproc_per_task = 2;
  worker.nproc_per_task = 2;
  JobSpec spec = Spec("pytorch", {chief, worker}, "chief");
  TaskEnvInput in;
  in.spec = &spec;
  in.cluster = {{"chief", {"c:29500"}}, {"worker", {"w0:1", "w1:2"}}};
  in.role = "worker";
  in.index = 1;
  in.local_rank = 1;
  Result<EnvMap> env = PyTorchEnv(in);
  ASSERT_TRUE(env.ok()) << env.status().message();
  EXPECT_EQ(*env, (EnvMap{{"MASTER_ADDR", "c"},
                          {"MASTER_PORT", "29500"},
                          {"WORLD_SIZE", "6"},
                          {"WORLD", "6"},
                          {"INIT_METHOD", "tcp://c:29500"},
                          {"RANK", "5"},
                          {"LOCAL_RANK", "1"},
                          {"LOCAL_WORLD_SIZE", "2"},
                          {"GROUP_RANK", "2"},
                          {"GROUP_WORLD_SIZE", "3"},
                          {"ROLE_RANK", "3"},
                          {"ROLE_WORLD_SIZE", "4"},
                          {"NODE_RANK", "2"},
                          {"TORCHELASTIC_RESTART_COUNT", "0"},
                          {"TORCHELASTIC_MAX_RESTARTS", "0"}}));
  in.role = "chief";
  in.index = 0;
  in.local_rank = 0;
  EXPECT_EQ(PyTorchEnv(in)->at("RANK"), "0");
  in.local_rank = 1;
  EXPECT_EQ(PyTorchEnv(in)->at("RANK"), "1");
  in.local_rank = 2;
  Result<EnvMap> outside = PyTorchEnv(in);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("tony.chief.nproc-per-task = 2"), std::string::npos);
}

// --- Validation --------------------------------------------------------------------------------

TEST(ValidateFrameworksTest, MxnetNeedsExactlyOneSchedulerAndNoPs) {
  JobSpec ok =
      Spec("mxnet", {Role("scheduler", 1), Role("server", 1), Role("worker", 2)}, "worker");
  EXPECT_EQ(ErrorOf(ok), "");

  JobSpec no_scheduler = Spec("mxnet", {Role("server", 1), Role("worker", 2)}, "worker");
  EXPECT_NE(ErrorOf(no_scheduler).find("exactly one scheduler"), std::string::npos);
  EXPECT_NE(ErrorOf(no_scheduler).find("tony.scheduler.instances = 0"), std::string::npos);

  JobSpec two_schedulers =
      Spec("mxnet", {Role("scheduler", 2), Role("server", 1), Role("worker", 2)}, "worker");
  EXPECT_NE(ErrorOf(two_schedulers).find("tony.scheduler.instances = 2"), std::string::npos);

  JobSpec with_ps =
      Spec("mxnet", {Role("ps", 1), Role("scheduler", 1), Role("server", 1), Role("worker", 1)},
           "worker");
  EXPECT_NE(ErrorOf(with_ps).find("tony.ps.instances = 0"), std::string::npos);

  JobSpec no_server = Spec("mxnet", {Role("scheduler", 1), Role("worker", 1)}, "worker");
  EXPECT_NE(ErrorOf(no_server).find("tony.server.instances"), std::string::npos);

  ok.mode = DistributedMode::kFcfs;
  EXPECT_NE(ErrorOf(ok).find("GANG"), std::string::npos);
}

TEST(ValidateFrameworksTest, HorovodRejectsPsAndNeedsWorkersInGangMode) {
  JobSpec ok = Spec("horovod", {Role("worker", 2)}, "worker");
  EXPECT_EQ(ErrorOf(ok), "");
  JobSpec with_ps = Spec("horovod", {Role("ps", 1, true), Role("worker", 2)}, "worker");
  EXPECT_NE(ErrorOf(with_ps).find("horovod has no parameter servers"), std::string::npos);
  EXPECT_NE(ErrorOf(with_ps).find("tony.ps.instances = 0"), std::string::npos);
  JobSpec no_workers = Spec("horovod", {Role("chief", 1)}, "chief");
  EXPECT_NE(ErrorOf(no_workers).find("tony.worker.instances"), std::string::npos);
  ok.mode = DistributedMode::kFcfs;
  EXPECT_NE(ErrorOf(ok).find("GANG"), std::string::npos);
}

TEST(ValidateFrameworksTest, JaxNeedsProcessesInGangMode) {
  JobSpec ok = Spec("jax", {Role("worker", 2)}, "worker");
  EXPECT_EQ(ErrorOf(ok), "");
  JobSpec only_ps = Spec("jax", {Role("ps", 1)}, "");
  EXPECT_NE(ErrorOf(only_ps).find("jax needs tony.worker.instances"), std::string::npos);
  ok.mode = DistributedMode::kFcfs;
  EXPECT_NE(ErrorOf(ok).find("FCFS"), std::string::npos);
}

TEST(ValidateFrameworksTest, StandaloneWithThreeWorkersNamesTheCount) {
  JobSpec spec = Spec("standalone", {Role("worker", 3)}, "worker");
  EXPECT_NE(ErrorOf(spec).find("the job has 3"), std::string::npos);
}

TEST(ValidateFrameworksTest, TensorFlowStrategiesShapesAreAccepted) {
  EXPECT_EQ(ErrorOf(Spec("tensorflow", {Role("worker", 2)}, "worker")), "");
  EXPECT_EQ(
      ErrorOf(Spec("tensorflow", {Role("chief", 1), Role("ps", 1, true), Role("worker", 2, true)},
                   "chief")),
      "");
}

TEST(PeersTest, ResolveIpv4KeepsLiteralsAndResolvesLocalhost) {
  EXPECT_EQ(*ResolveIpv4("10.1.2.3"), "10.1.2.3");
  EXPECT_EQ(*ResolveIpv4("localhost"), "127.0.0.1");
}

}  // namespace
}  // namespace tony::runtime
