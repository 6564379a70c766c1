// Unit tests of how tony.application.prepare-stage / training-stage become RoleSpec::stage
// (config/job_spec.cc, BuildStages: TonY's auto-fill, its refusals, and which stages wait), and
// how TonY's group dependency keys become JobSpec::group_dependencies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "config/configuration.h"
#include "config/job_spec.h"

namespace tony {
namespace {

using ::testing::HasSubstr;

// TonY's testTonyAMSchedulerShouldPass roles: dbloader, db, ps (untracked), worker.
Configuration StagesConf(std::initializer_list<std::pair<const char*, const char*>> keys) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.containers.command", "python train.py", "--executes");
  for (const char* role : {"dbloader", "db", "ps", "worker"}) {
    conf.Set(std::string("tony.") + role + ".instances", "1", "tony.xml");
  }
  for (const auto& [k, v] : keys) conf.Set(k, v, "tony.xml");
  return conf;
}

std::map<std::string, int> Stages(const Configuration& conf) {
  Result<JobSpec> spec = BuildJobSpec(conf);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  std::map<std::string, int> stages;
  if (spec.ok()) {
    for (const RoleSpec& r : spec->roles) stages[r.name] = r.stage;
  }
  return stages;
}

std::string Error(const Configuration& conf) {
  Result<JobSpec> spec = BuildJobSpec(conf);
  EXPECT_FALSE(spec.ok());
  return spec.ok() ? "" : spec.status().message();
}

const std::map<std::string, int> kStaged = {{"db", 0}, {"dbloader", 0}, {"ps", 1}, {"worker", 1}};

TEST(StagesConfigTest, BothStagesAsTonYsSchedulerTestSetsThem) {
  EXPECT_EQ(Stages(StagesConf({{"tony.application.prepare-stage", "dbloader,db"},
                               {"tony.application.training-stage", "ps,worker"}})),
            kStaged);
}

TEST(StagesConfigTest, OneStageGivenTheOtherIsEveryOtherRole) {
  EXPECT_EQ(Stages(StagesConf({{"tony.application.prepare-stage", " dbloader , db "}})), kStaged);
  EXPECT_EQ(Stages(StagesConf({{"tony.application.training-stage", "worker,ps"}})), kStaged);
}

TEST(StagesConfigTest, NoStagesOrNothingToWaitForIsOneStage) {
  const std::map<std::string, int> one = {{"db", 0}, {"dbloader", 0}, {"ps", 0}, {"worker", 0}};
  EXPECT_EQ(Stages(StagesConf({})), one);
  EXPECT_FALSE(BuildJobSpec(StagesConf({}))->Staged());
  // ps is untracked: TonY's training stage waits for no task of it.
  EXPECT_EQ(Stages(StagesConf({{"tony.application.prepare-stage", "ps"}})), one);
  // Every role in the prepare stage: no training stage.
  EXPECT_EQ(Stages(StagesConf({{"tony.application.prepare-stage", "db,dbloader,ps,worker"}})), one);
  // A role with no instances has no tasks to wait for.
  Configuration zero = StagesConf({{"tony.application.prepare-stage", "loader"}});
  zero.Set("tony.loader.instances", "0", "tony.xml");
  EXPECT_EQ(Stages(zero), one);
}

TEST(StagesConfigTest, ARoleThatIsNoRoleOfTheJobIsRefusedWithTheClosest) {
  std::string e = Error(StagesConf({{"tony.application.prepare-stage", "dbloadr,db"}}));
  EXPECT_THAT(e, HasSubstr("tony.application.prepare-stage = \"dbloadr,db\" (from tony.xml) names "
                           "'dbloadr', which is no role of this job"));
  EXPECT_THAT(e, HasSubstr("did you mean 'dbloader'?"));
}

TEST(StagesConfigTest, ARoleInBothStagesIsRefused) {
  EXPECT_THAT(Error(StagesConf({{"tony.application.prepare-stage", "db,dbloader"},
                                {"tony.application.training-stage", "db,ps,worker"}})),
              HasSubstr("role db is in both tony.application.prepare-stage"));
}

TEST(StagesConfigTest, WithBothKeysARoleInNeitherIsRefused) {
  EXPECT_THAT(Error(StagesConf({{"tony.application.prepare-stage", "db,dbloader"},
                                {"tony.application.training-stage", "worker"}})),
              HasSubstr("role(s) ps in neither tony.application.prepare-stage"));
}

TEST(StagesConfigTest, TheStageKeysAreNoLongerWarnedAsUnsupported) {
  for (const std::string& w :
       UnsupportedKeyWarnings(StagesConf({{"tony.application.prepare-stage", "db,dbloader"}}))) {
    EXPECT_THAT(w, ::testing::Not(HasSubstr("stage")));
  }
}

TEST(GroupsConfigTest, TonYsEvaluatorExampleBecomesOneDependency) {
  Configuration conf =
      StagesConf({{"tony.application.group.A", "worker,db"},
                  {"tony.application.dependency.ps.timeout.after.A", "3600"},
                  {"tony.application.dependency.ps.timeout.after.A.ignored", "true"}});
  conf.Set("tony.db.instances", "0", "tony.xml");
  Result<JobSpec> spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_EQ(spec->group_dependencies.size(), 1u);
  const GroupDependency& d = spec->group_dependencies[0];
  EXPECT_EQ(d.role, "ps");
  EXPECT_EQ(d.group, "A");
  EXPECT_EQ(d.members, std::vector<std::string>{"worker"});  // db has no tasks
  EXPECT_EQ(d.timeout_ms, 3'600'000);
  EXPECT_TRUE(d.ignored);
  EXPECT_EQ(d.key, "tony.application.dependency.ps.timeout.after.A");
  EXPECT_TRUE(UnknownKeyWarnings(conf).empty());
  EXPECT_TRUE(UnsupportedKeyWarnings(conf).empty());
}

TEST(GroupsConfigTest, WhatDoesNotResolveIsRefusedNamingTheKey) {
  EXPECT_THAT(Error(StagesConf({{"tony.application.group.A", "worker"},
                                {"tony.application.dependency.evalutor.timeout.after.A", "10"}})),
              HasSubstr("tony.application.dependency.evalutor.timeout.after.A = \"10\" (from "
                        "tony.xml) is about 'evalutor', which is no role of this job"));
  EXPECT_THAT(Error(StagesConf({{"tony.application.dependency.ps.timeout.after.B", "10"}})),
              HasSubstr("names group B, but tony.application.group.B is not set"));
  EXPECT_THAT(Error(StagesConf({{"tony.application.group.A", "wroker"},
                                {"tony.application.dependency.ps.timeout.after.A", "10"}})),
              HasSubstr("tony.application.group.A = \"wroker\" (from tony.xml) names 'wroker', "
                        "which is no role of this job (roles: db, dbloader, ps, worker); did you "
                        "mean 'worker'?"));
  EXPECT_THAT(Error(StagesConf({{"tony.application.group.A", "worker"},
                                {"tony.application.group.B", "db"},
                                {"tony.application.dependency.ps.timeout.after.A", "10"},
                                {"tony.application.dependency.ps.timeout.after.B", "10"}})),
              HasSubstr("both set a timeout for ps: a role depends on one group"));
  EXPECT_THAT(Error(StagesConf({{"tony.application.group.A", "worker"},
                                {"tony.application.dependency.ps.timeout.after.A", "-1"}})),
              HasSubstr("tony.application.dependency.ps.timeout.after.A = \"-1\""));
}

}  // namespace
}  // namespace tony
