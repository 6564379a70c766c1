// The pre-submit fit check (engine/yarn/client/fit_check.h): one container against the largest
// node, the gang packed onto the nodes, the queue's maximum share, and the gangs a job spec makes.
#include "engine/yarn/client/fit_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tony::client {
namespace {

using ::testing::HasSubstr;

FitNode Node(int64_t mb, int vcores = 8, int64_t gpus = 0, std::vector<std::string> labels = {}) {
  return {{mb, vcores, gpus}, std::move(labels)};
}

FitAsk Am(int64_t mb, int vcores = 1) {
  FitAsk a;
  a.am = true;
  a.resource = {mb, vcores, 0};
  a.memory_setting = "tony.am.memory = " + std::to_string(mb) + "m";
  a.vcores_setting = "tony.am.vcores = " + std::to_string(vcores);
  a.gpus_setting = "tony.am.gpus = 0";
  return a;
}

FitAsk Tasks(const std::string& role, int count, int64_t mb, int vcores = 1, int64_t gpus = 0) {
  FitAsk a;
  a.role = role;
  a.count = count;
  a.resource = {mb, vcores, gpus};
  std::string p = "tony." + role;
  a.memory_setting = p + ".memory = " + std::to_string(mb) + "m";
  a.vcores_setting = p + ".vcores = " + std::to_string(vcores);
  a.gpus_setting = p + ".gpus = " + std::to_string(gpus);
  a.count_setting = p + ".instances = " + std::to_string(count);
  return a;
}

FitAsk Labelled(FitAsk a, const std::string& label) {
  a.node_label = label;
  a.label_setting = "tony." + a.role + ".node-label = " + label;
  return a;
}

std::vector<FitNode> TwoNodes() { return {Node(4096), Node(4096)}; }

TEST(PackGangTest, FirstFitDecreasingPlacesWhatFits) {
  // 2048 + 2 x 2048 on two 4096 MB nodes: the AM shares a node with one worker.
  EXPECT_EQ(PackGang(TwoNodes(), {{Am(2048), Tasks("worker", 2, 2048)}}, true), Packing::kFits);
  EXPECT_EQ(PackGang(TwoNodes(), {{Am(2048), Tasks("worker", 2, 4096)}}, true), Packing::kCannot);
  EXPECT_EQ(PackGang({}, {{Am(1)}}, true), Packing::kCannot);
  EXPECT_EQ(PackGang(TwoNodes(), {}, true), Packing::kFits);
}

// Where first-fit decreasing alone fails: 4, 3, 3, 2, 2, 2 GB on two 8 GB nodes. It puts 4 and 3
// on the first (1 left), 3, 2, 2 on the second (1 left), and the last 2 nowhere; yet 4+2+2 and
// 3+3+2 fit. The search backtracks and finds that.
TEST(PackGangTest, BacktracksWhereFirstFitDecreasingGetsStuck) {
  std::vector<FitNode> nodes = {Node(8192), Node(8192)};
  FitGang gang{{Tasks("a", 1, 4096), Tasks("b", 2, 3072), Tasks("c", 3, 2048)}};
  EXPECT_EQ(PackGang(nodes, gang, true), Packing::kFits);
  gang.asks[2].count = 4;  // 18 GB in 16 GB
  EXPECT_EQ(PackGang(nodes, gang, true), Packing::kCannot);
}

TEST(PackGangTest, VcoresCountOnlyWhereTheSchedulerCountsThem) {
  std::vector<FitNode> nodes = {Node(4096, 2), Node(4096, 2)};
  FitGang gang{{Am(512), Tasks("worker", 4, 512)}};  // 5 vcores on 4
  EXPECT_EQ(PackGang(nodes, gang, true), Packing::kCannot);
  EXPECT_EQ(PackGang(nodes, gang, false), Packing::kFits);
}

TEST(PackGangTest, LabelledContainersGoOnlyToNodesWithTheLabel) {
  std::vector<FitNode> nodes = {Node(4096, 8, 0, {"gpu"}), Node(4096)};
  EXPECT_EQ(PackGang(nodes, {{Am(1024), Labelled(Tasks("worker", 2, 2048), "gpu")}}, true),
            Packing::kFits);  // the AM on the unlabelled node, both workers on the gpu one
  EXPECT_EQ(PackGang(nodes, {{Am(1024), Labelled(Tasks("worker", 3, 2048), "gpu")}}, true),
            Packing::kCannot);
}

TEST(PackGangTest, GivesUpAsUnknownPastItsBudget) {
  std::vector<FitNode> nodes;
  for (int i = 0; i < 8; ++i) nodes.push_back(Node(1000 + i * 10, 64));
  FitGang gang;
  for (int i = 0; i < 16; ++i) gang.asks.push_back(Tasks("t", 1, 300 + i * 7));
  EXPECT_EQ(PackGang(nodes, gang, true, /*budget=*/5), Packing::kUnknown);
}

TEST(CheckJobFitsTest, TheSeedJobIsRefusedNamingTheNumbers) {
  // The AM (2 GB) and 2 workers of 4 GB on two 4 GB NodeManagers: the AM and one worker start,
  // the other worker would wait forever.
  FitInput in{TwoNodes(), {{{Am(2048), Tasks("worker", 2, 4096)}}}, true, std::nullopt};
  Status s = CheckJobFits(in);
  ASSERT_EQ(s.code(), StatusCode::kResourceExhausted) << s.ToString();
  EXPECT_EQ(s.message(),
            "the job can never run on this cluster: the AM (2048 MB) and 2 worker containers of "
            "4096 MB (10240 MB in all) cannot all be placed on 2 NodeManagers of 4096 MB each; "
            "the gang needs all of them at once (tony.am.memory = 2048m, tony.worker.memory = "
            "4096m, tony.worker.instances = 2) (tony.application.skip-fit-check=true submits it "
            "anyway, for a cluster that will grow)");
}

TEST(CheckJobFitsTest, AContainerLargerThanEveryNodeNamesTheLargest) {
  FitInput in{TwoNodes(), {{{Am(2048), Tasks("worker", 1, 8192)}}}, true, std::nullopt};
  Status s = CheckJobFits(in);
  EXPECT_THAT(s.message(),
              HasSubstr("the job can never run on this cluster: a worker container needs 8192 MB "
                        "(tony.worker.memory = 8192m) but the largest NodeManager has 4096 MB "
                        "(2 nodes running)"));
  in.gangs = {{{Am(8192)}}};
  EXPECT_THAT(CheckJobFits(in).message(), HasSubstr("the AM container needs 8192 MB"));
  in.gangs = {{{Am(1024), Tasks("worker", 1, 1024, 16)}}};
  EXPECT_THAT(CheckJobFits(in).message(),
              HasSubstr("needs 16 vcores (tony.worker.vcores = 16) but the largest NodeManager "
                        "has 8 vcores"));
  in.count_vcores = false;
  EXPECT_TRUE(CheckJobFits(in).ok());
}

TEST(CheckJobFitsTest, GpusAreCheckedAsYarnGpu) {
  FitInput in{{Node(4096, 8, 2), Node(4096, 8, 2)},
              {{{Am(1024), Tasks("worker", 1, 1024, 1, 3)}}},
              true,
              std::nullopt};
  EXPECT_THAT(CheckJobFits(in).message(),
              HasSubstr("a worker container needs yarn.io/gpu:3 (tony.worker.gpus = 3) but the "
                        "largest NodeManager has yarn.io/gpu:2"));
  in.nodes = TwoNodes();
  EXPECT_THAT(CheckJobFits(in).message(), HasSubstr("this cluster has no GPUs"));
  // Three 2-GPU workers on two 2-GPU nodes: memory fits, GPUs do not.
  in.nodes = {Node(8192, 8, 2), Node(8192, 8, 2)};
  in.gangs = {{{Am(1024), Tasks("worker", 3, 1024, 1, 2)}}};
  EXPECT_THAT(CheckJobFits(in).message(),
              HasSubstr("2 NodeManagers of 8192 MB, yarn.io/gpu:2 each"));
}

TEST(CheckJobFitsTest, NoNodeWithTheLabelIsRefusedNamingTheKey) {
  FitInput in{
      TwoNodes(), {{{Am(1024), Labelled(Tasks("worker", 1, 1024), "gpu")}}}, true, std::nullopt};
  EXPECT_THAT(CheckJobFits(in).message(),
              HasSubstr("a worker container asks for node label gpu (tony.worker.node-label = "
                        "gpu) but none of the 2 nodes running has that label"));
}

TEST(CheckJobFitsTest, VcoresAreNamedOnlyWhenTheyAreWhatDoesNotFit) {
  FitInput in{
      {Node(8192, 2), Node(8192, 2)}, {{{Am(512), Tasks("worker", 4, 512)}}}, true, std::nullopt};
  EXPECT_THAT(CheckJobFits(in).message(),
              HasSubstr("the AM (512 MB, 1 vcore) and 4 worker containers of 512 MB, 1 vcore "
                        "(2560 MB, 5 vcores in all) cannot all be placed on 2 NodeManagers of "
                        "8192 MB, 2 vcores each"));
}

TEST(CheckJobFitsTest, UnlikeNodesAreListedByKind) {
  FitInput in{{Node(4096), Node(4096), Node(2048)},
              {{{Am(2048), Tasks("worker", 3, 3072)}}},
              true,
              std::nullopt};
  EXPECT_THAT(CheckJobFits(in).message(),
              HasSubstr("cannot all be placed on 3 NodeManagers (2 of 4096 MB, 1 of 2048 MB)"));
}

TEST(CheckJobFitsTest, TheQueuesMaximumCapacityBoundsTheGang) {
  FitInput in{TwoNodes(), {{{Am(1024), Tasks("worker", 2, 2048)}}}, true, FitQueue{"small", 0.5}};
  Status s = CheckJobFits(in);
  EXPECT_THAT(s.message(),
              HasSubstr("the job can never run in queue small (tony.yarn.queue = small): the AM "
                        "(1024 MB) and 2 worker containers of 2048 MB (5120 MB in all) exceed the "
                        "queue's maximum capacity, 50% of the cluster's 8192 MB (4096 MB)"));
  in.queue->max_fraction = 0.625;  // 5120 of 8192: exactly at the limit
  EXPECT_TRUE(CheckJobFits(in).ok()) << CheckJobFits(in).ToString();
  in.queue.reset();
  EXPECT_TRUE(CheckJobFits(in).ok());
}

TEST(CheckJobFitsTest, NoRunningNodeRefusesNothing) {
  FitInput in{{}, {{{Am(1 << 20)}}}, true, std::nullopt};
  EXPECT_TRUE(CheckJobFits(in).ok());
}

// README: "When the RM cannot tell (a failed call, no running node) nothing is refused: a warning
// says the check was skipped."
TEST(FitCheckSkippedTest, AFailedNodeCallOrNoRunningNodeSkipsTheCheckSayingSo) {
  EXPECT_EQ(FitCheckSkipped(Unavailable("GetClusterNodes on rm1:8032: connection refused"), 0, 0),
            "GetClusterNodes on rm1:8032: connection refused; the check that the job fits the "
            "cluster is skipped");
  EXPECT_EQ(FitCheckSkipped(Status::Ok(), 0, 0),
            "the ResourceManager reports no running NodeManager (0 known); the check that the "
            "job fits the cluster is skipped; the job waits for one");
  EXPECT_EQ(FitCheckSkipped(Status::Ok(), 0, 3),
            "the ResourceManager reports no running NodeManager (3 known); the check that the "
            "job fits the cluster is skipped; the job waits for one");
  EXPECT_EQ(FitCheckSkipped(Status::Ok(), 1, 3), std::nullopt);
}

JobSpec TwoStageSpec() {
  JobSpec spec;
  spec.am_memory_mb = 2048;
  RoleSpec prep;
  prep.name = "prep";
  prep.instances = 1;
  prep.memory_mb = 1024;
  RoleSpec worker;
  worker.name = "worker";
  worker.instances = 3;
  worker.memory_mb = 1000;
  worker.stage = 1;
  spec.roles = {prep, worker};
  return spec;
}

TEST(JobGangsTest, OneGangPerStageWithTheAmInEach) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.worker.memory", "1000m", "test");
  std::vector<FitGang> gangs = JobGangs(TwoStageSpec(), conf, "", 0);
  ASSERT_EQ(gangs.size(), 2u);
  ASSERT_EQ(gangs[0].asks.size(), 2u);
  EXPECT_TRUE(gangs[0].asks[0].am);
  EXPECT_EQ(gangs[0].asks[0].memory_setting, "tony.am.memory = 2g");
  EXPECT_EQ(gangs[0].asks[1].role, "prep");
  EXPECT_EQ(gangs[0].asks[1].memory_setting, "tony.prep.memory = 2g");  // the key's default
  ASSERT_EQ(gangs[1].asks.size(), 2u);
  EXPECT_EQ(gangs[1].asks[1].count, 3);
  EXPECT_EQ(gangs[1].asks[1].resource.memory_mb, 1000);
  EXPECT_EQ(gangs[1].asks[1].memory_setting, "tony.worker.memory = 1000m");
}

TEST(JobGangsTest, MemoryIsRoundedUpToTheSchedulersMinimumAllocation) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.worker.memory", "1000m", "test");
  std::vector<FitGang> gangs = JobGangs(TwoStageSpec(), conf, "", 512);
  EXPECT_EQ(gangs[1].asks[1].resource.memory_mb, 1024);
  EXPECT_EQ(gangs[1].asks[1].memory_setting,
            "tony.worker.memory = 1000m, rounded up to a multiple of "
            "yarn.scheduler.minimum-allocation-mb = 512");
  EXPECT_EQ(gangs[1].asks[0].resource.memory_mb, 2048);
}

TEST(JobGangsTest, ThePreprocessTaskIsAContainerOfItsOwnWithTheAmsResources) {
  JobSpec spec = TwoStageSpec();
  RoleSpec am;
  am.name = "am";
  am.instances = 1;
  am.memory_mb = spec.am_memory_mb;
  am.preprocess = true;
  spec.roles.insert(spec.roles.begin(), am);
  for (RoleSpec& r : spec.roles) r.stage += r.preprocess ? 0 : 1;
  std::vector<FitGang> gangs = JobGangs(spec, Configuration::WithDefaults(), "", 0);
  ASSERT_EQ(gangs.size(), 3u);
  ASSERT_EQ(gangs[0].asks.size(), 2u);
  EXPECT_EQ(gangs[0].asks[1].role, "am");
  EXPECT_EQ(gangs[0].asks[1].memory_setting, "tony.am.memory = 2g");
  EXPECT_EQ(gangs[0].asks[1].count_setting, "");
}

TEST(JobGangsTest, FcfsHoldsTheAmAndOneTaskAtATime) {
  JobSpec spec = TwoStageSpec();
  spec.mode = DistributedMode::kFcfs;
  std::vector<FitGang> gangs =
      JobGangs(spec, Configuration::WithDefaults(), /*am_node_label=*/"big", 0);
  ASSERT_EQ(gangs.size(), 2u);
  for (const FitGang& g : gangs) {
    ASSERT_EQ(g.asks.size(), 2u);
    EXPECT_EQ(g.asks[0].node_label, "big");
    EXPECT_EQ(g.asks[0].label_setting, "tony.application.node-label = big");
    EXPECT_EQ(g.asks[1].count, 1);
  }
}

}  // namespace
}  // namespace tony::client
