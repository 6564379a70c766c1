// The pre-submit fit check both engines share (engine/fit_check.h): one container against the
// largest node, the gang packed onto the nodes, the queue's maximum share, and the gangs a job spec
// makes.
#include "engine/fit_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "common/files.h"
#include "common/strings.h"
#include "config/key_names.h"
#include "engine/local/local_engine.h"

namespace tony::engine {
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
  nodes.reserve(8);
  for (int i = 0; i < 8; ++i) nodes.push_back(Node(1000 + i * 10, 64));
  FitGang gang;
  gang.asks.reserve(16);
  for (int i = 0; i < 16; ++i) gang.asks.push_back(Tasks("t", 1, 300 + i * 7));
  EXPECT_EQ(PackGang(nodes, gang, true, /*budget=*/5), Packing::kUnknown);
}

TEST(CheckJobFitsTest, TheSeedJobIsRefusedNamingTheNumbers) {
  // The AM (2 GB) and 2 workers of 4 GB on two 4 GB NodeManagers: the AM and one worker start,
  // the other worker would wait forever.
  FitInput in{TwoNodes(), {{{Am(2048), Tasks("worker", 2, 4096)}}}, true, std::nullopt, {}};
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
  FitInput in{TwoNodes(), {{{Am(2048), Tasks("worker", 1, 8192)}}}, true, std::nullopt, {}};
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
              std::nullopt,
              {}};
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
  FitInput in{TwoNodes(),
              {{{Am(1024), Labelled(Tasks("worker", 1, 1024), "gpu")}}},
              true,
              std::nullopt,
              {}};
  EXPECT_THAT(CheckJobFits(in).message(),
              HasSubstr("a worker container asks for node label gpu (tony.worker.node-label = "
                        "gpu) but none of the 2 nodes running has that label"));
}

TEST(CheckJobFitsTest, VcoresAreNamedOnlyWhenTheyAreWhatDoesNotFit) {
  FitInput in{{Node(8192, 2), Node(8192, 2)},
              {{{Am(512), Tasks("worker", 4, 512)}}},
              true,
              std::nullopt,
              {}};
  EXPECT_THAT(CheckJobFits(in).message(),
              HasSubstr("the AM (512 MB, 1 vcore) and 4 worker containers of 512 MB, 1 vcore "
                        "(2560 MB, 5 vcores in all) cannot all be placed on 2 NodeManagers of "
                        "8192 MB, 2 vcores each"));
}

TEST(CheckJobFitsTest, UnlikeNodesAreListedByKind) {
  FitInput in{{Node(4096), Node(4096), Node(2048)},
              {{{Am(2048), Tasks("worker", 3, 3072)}}},
              true,
              std::nullopt,
              {}};
  EXPECT_THAT(CheckJobFits(in).message(),
              HasSubstr("cannot all be placed on 3 NodeManagers (2 of 4096 MB, 1 of 2048 MB)"));
}

TEST(CheckJobFitsTest, TheQueuesMaximumCapacityBoundsTheGang) {
  FitInput in{
      TwoNodes(), {{{Am(1024), Tasks("worker", 2, 2048)}}}, true, FitQueue{"small", 0.5}, {}};
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
  FitInput in{{}, {{{Am(1 << 20)}}}, true, std::nullopt, {}};
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

GangOptions Rounded(int64_t min_allocation_mb) {
  GangOptions o;
  o.min_allocation_mb = min_allocation_mb;
  return o;
}

GangOptions AmLabel(const std::string& label) {
  GangOptions o;
  o.am_node_label = label;
  return o;
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
  conf.Set("tony.worker.memory", "1000m", "/jobs/tony.xml");
  JobSpec spec = TwoStageSpec();
  spec.sources["tony.worker.memory"] = "/jobs/tony.xml";
  std::vector<FitGang> gangs = JobGangs(spec, conf, {});
  ASSERT_EQ(gangs.size(), 2u);
  ASSERT_EQ(gangs[0].asks.size(), 2u);
  EXPECT_TRUE(gangs[0].asks[0].am);
  EXPECT_EQ(gangs[0].asks[0].memory_setting, "tony.am.memory = 2g by default");
  EXPECT_EQ(gangs[0].asks[1].role, "prep");
  EXPECT_EQ(gangs[0].asks[1].memory_setting, "tony.prep.memory = 2g by default");
  ASSERT_EQ(gangs[1].asks.size(), 2u);
  EXPECT_EQ(gangs[1].asks[1].count, 3);
  EXPECT_EQ(gangs[1].asks[1].resource.memory_mb, 1000);
  EXPECT_EQ(gangs[1].asks[1].memory_setting, "tony.worker.memory = 1000m from /jobs/tony.xml");
  EXPECT_EQ(gangs[1].asks[1].count_setting, "tony.worker.instances = 0 by default");
}

TEST(JobGangsTest, MemoryIsRoundedUpToTheSchedulersMinimumAllocation) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.worker.memory", "1000m", "--conf");
  JobSpec spec = TwoStageSpec();
  spec.sources["tony.worker.memory"] = "--conf";
  std::vector<FitGang> gangs = JobGangs(spec, conf, Rounded(512));
  EXPECT_EQ(gangs[1].asks[1].resource.memory_mb, 1024);
  EXPECT_EQ(gangs[1].asks[1].memory_setting,
            "tony.worker.memory = 1000m from --conf, rounded up to a multiple of "
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
  std::vector<FitGang> gangs = JobGangs(spec, Configuration::WithDefaults(), {});
  ASSERT_EQ(gangs.size(), 3u);
  ASSERT_EQ(gangs[0].asks.size(), 2u);
  EXPECT_EQ(gangs[0].asks[1].role, "am");
  EXPECT_EQ(gangs[0].asks[1].memory_setting, "tony.am.memory = 2g by default");
  EXPECT_EQ(gangs[0].asks[1].count_setting, "");
}

TEST(JobGangsTest, FcfsHoldsTheAmAndOneTaskAtATime) {
  JobSpec spec = TwoStageSpec();
  spec.mode = DistributedMode::kFcfs;
  spec.sources["tony.application.node-label"] = "--conf";
  std::vector<FitGang> gangs = JobGangs(spec, Configuration::WithDefaults(), AmLabel("big"));
  ASSERT_EQ(gangs.size(), 2u);
  for (const FitGang& g : gangs) {
    ASSERT_EQ(g.asks.size(), 2u);
    EXPECT_EQ(g.asks[0].node_label, "big");
    EXPECT_EQ(g.asks[0].label_setting, "tony.application.node-label = big from --conf");
    EXPECT_EQ(g.asks[1].count, 1);
  }
}

// The local engine: no AM container, one machine where a stage's tasks all run at once whatever
// the mode, and no labels.
TEST(JobGangsTest, OnOneMachineEveryTaskOfAStageIsHeldAtOnceWithoutTheAm) {
  JobSpec spec = TwoStageSpec();
  spec.mode = DistributedMode::kFcfs;
  spec.roles[1].node_label = "gpu";
  GangOptions o;
  o.am_container = false;
  o.fcfs_one_at_a_time = false;
  o.labels = false;
  std::vector<FitGang> gangs = JobGangs(spec, Configuration::WithDefaults(), o);
  ASSERT_EQ(gangs.size(), 2u);
  ASSERT_EQ(gangs[1].asks.size(), 1u);
  EXPECT_FALSE(gangs[1].asks[0].am);
  EXPECT_EQ(gangs[1].asks[0].count, 3);
  EXPECT_EQ(gangs[1].asks[0].node_label, "");
}

// One case of tests/lib/fit_cases.txt (its header says the format); the local and YARN tiers run
// the same cases through `tony submit`.
struct FitCase {
  std::string name;
  std::vector<std::string> engines;
  std::vector<std::pair<std::string, std::string>> file;  // in the job's tony.xml
  std::vector<std::string> flags;                         // key=value, as --conf
  std::vector<std::string> names;  // what the refusal contains; {file}: the tony.xml's path
  std::vector<std::string> names_unit;
  std::vector<std::string> names_local;
};

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Applies one "<word> <rest>" line to `c`, or says what is wrong with it.
Status ParseCaseLine(const std::string& word, const std::string& rest, FitCase& c) {
  if (word == "engines") {
    std::istringstream in(rest);
    for (std::string e; in >> e;) c.engines.push_back(e);
  } else if (word == "file") {
    size_t eq = rest.find('=');
    if (eq == std::string::npos) return InvalidArgument("no '=' in " + rest);
    c.file.emplace_back(rest.substr(0, eq), rest.substr(eq + 1));
  } else if (word == "flag") {
    c.flags.push_back(rest);
  } else if (word == "names") {
    c.names.push_back(rest);
  } else if (StartsWith(word, "names@")) {
    std::vector<std::string> only = SplitTrimmed(word.substr(6), ',');
    if (Has(only, "unit")) c.names_unit.push_back(rest);
    if (Has(only, "local")) c.names_local.push_back(rest);
  } else {
    return InvalidArgument("unknown line: " + word + " " + rest);
  }
  return Status::Ok();
}

std::vector<FitCase> LoadFitCases() {
  Result<std::string> text = ReadFile(TONY_FIT_CASES);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  std::vector<FitCase> cases;
  if (!text.ok()) return cases;
  std::istringstream in(*text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    line = std::string(Trim(line));
    if (line.empty() || line[0] == '#') continue;
    size_t space = line.find(' ');
    std::string word = line.substr(0, space);
    std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
    if (word == "case") {
      cases.emplace_back();
      cases.back().name = rest;
      continue;
    }
    Status s = cases.empty() ? InvalidArgument("a line before the first case")
                             : ParseCaseLine(word, rest, cases.back());
    EXPECT_TRUE(s.ok()) << TONY_FIT_CASES << ":" << number << ": " << s.message();
  }
  return cases;
}

constexpr char kCaseFile[] = "/jobs/fit/tony.xml";

// The job as `tony submit --conf_file <kCaseFile> --conf ...` layers it.
Result<Configuration> CaseConf(const FitCase& c) {
  Configuration conf = Configuration::WithDefaults();
  std::string xml = "<configuration>";
  for (const auto& [key, value] : c.file) {
    xml += "<property><name>" + key + "</name><value>" + value + "</value></property>";
  }
  TONY_RETURN_IF_ERROR(conf.AddXml(xml + "</configuration>", kCaseFile));
  for (const std::string& flag : c.flags) TONY_RETURN_IF_ERROR(conf.AddOverride(flag));
  conf.Set(keys::kContainersCommand, "python3 job.py", "--executes");
  return conf;
}

void ExpectRefusalNames(const Status& s, const FitCase& c,
                        const std::vector<std::string>& only_here) {
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << c.name << ": " << s.ToString();
  std::vector<std::string> names = c.names;
  names.insert(names.end(), only_here.begin(), only_here.end());
  for (std::string n : names) {
    size_t at = n.find("{file}");
    if (at != std::string::npos) n.replace(at, 6, kCaseFile);
    EXPECT_THAT(s.message(), HasSubstr(n)) << c.name;
  }
}

// The table on the minicluster's capacity through the YARN face's gangs, and on one machine of
// 8192 MB with 2 GPUs through the local face (CheckFitsLocally).
TEST(FitCasesTest, EveryCaseIsRefusedNamingTheKeyItsValueAndWhereItWasSet) {
  std::vector<FitCase> cases = LoadFitCases();
  ASSERT_GE(cases.size(), 6u);
  for (const FitCase& c : cases) {
    Result<Configuration> conf = CaseConf(c);
    ASSERT_TRUE(conf.ok()) << c.name << ": " << conf.status().ToString();
    Result<JobSpec> spec = BuildJobSpec(*conf);
    ASSERT_TRUE(spec.ok()) << c.name << ": " << spec.status().ToString();
    if (Has(c.engines, "unit")) {
      FitInput in{{Node(4096, 8, 2), Node(4096, 8, 2)}, JobGangs(*spec, *conf, {}), true, {}, {}};
      ExpectRefusalNames(CheckJobFits(in), c, c.names_unit);
    }
    if (Has(c.engines, "local")) {
      MachineCapacity machine{8192, 2, {0, 1}};
      ExpectRefusalNames(CheckFitsLocally(*spec, *conf, machine), c, c.names_local);
    }
  }
}

// The local face's words: this machine, GPUs by count, and tony.local.memory as the way out.
TEST(FitCasesTest, TheLocalFaceSpeaksOfThisMachine) {
  Configuration conf = Configuration::WithDefaults();
  ASSERT_TRUE(conf.AddOverride("tony.worker.instances=2").ok());
  ASSERT_TRUE(conf.AddOverride("tony.worker.gpus=1").ok());
  conf.Set(keys::kContainersCommand, "python3 job.py", "--executes");
  Result<JobSpec> spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  Status s = CheckFitsLocally(*spec, conf, MachineCapacity{8192, 2, {0}});
  EXPECT_EQ(s.message(),
            "the job can never run on this machine: 2 worker containers of 2048 MB, 1 GPU "
            "(4096 MB, 2 GPUs in all) cannot all run at once: this machine has 8192 MB, 1 GPU; "
            "the tasks of a stage all run at once (tony.worker.memory = 2g by default, "
            "tony.worker.gpus = 1 from --conf, tony.worker.instances = 2 from --conf) "
            "(tony.local.memory sets the memory this machine offers the job, "
            "tony.gpu-exec-path the tool that lists its GPUs)");
  s = CheckFitsLocally(*spec, conf, MachineCapacity{8192, 2, {}});
  EXPECT_EQ(s.message(),
            "the job can never run on this machine: a worker container needs 1 GPU "
            "(tony.worker.gpus = 1 from --conf) but this machine has no GPUs: nvidia-smi -L lists "
            "none (tony.local.memory sets the memory this machine offers the job, "
            "tony.gpu-exec-path the tool that lists its GPUs)");
  EXPECT_TRUE(CheckFitsLocally(*spec, conf, MachineCapacity{8192, 2, {0, 1}}).ok());
}

}  // namespace
}  // namespace tony::engine
