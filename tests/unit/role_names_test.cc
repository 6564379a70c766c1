#include "config/role_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tony {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

JobSpec SpecWith(std::vector<std::pair<std::string, int>> roles) {
  JobSpec spec;
  for (auto& [name, n] : roles) {
    RoleSpec r;
    r.name = name;
    r.instances = n;
    spec.roles.push_back(r);
  }
  return spec;
}

TEST(RoleNamesTest, TyposOfWellKnownRolesWarnWithDidYouMean) {
  auto w = RoleNameWarnings(SpecWith({{"worker", 2}, {"workers", 2}}));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "tony.workers.instances makes a role of its own, 'workers' (2 task(s)); did you mean "
            "tony.worker.instances?");
  EXPECT_THAT(RoleNameWarnings(SpecWith({{"evalutor", 1}})),
              ElementsAre(HasSubstr("did you mean tony.evaluator.instances?")));
  EXPECT_THAT(RoleNameWarnings(SpecWith({{"wroker", 1}})),
              ElementsAre(HasSubstr("did you mean tony.worker.instances?")));
}

TEST(RoleNamesTest, CloseToAnotherRoleOfTheJobWarnsOnce) {
  auto w = RoleNameWarnings(SpecWith({{"loader", 1}, {"loaders", 1}}));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_THAT(w[0], HasSubstr("'loaders'"));
  EXPECT_THAT(w[0], HasSubstr("did you mean tony.loader.instances?"));
}

TEST(RoleNamesTest, WellKnownAndDistinctNamesDoNotWarn) {
  EXPECT_TRUE(RoleNameWarnings(SpecWith({{"worker", 2},
                                         {"ps", 1},
                                         {"chief", 1},
                                         {"evaluator", 1},
                                         {"server", 1},
                                         {"scheduler", 1}}))
                  .empty());
  EXPECT_TRUE(RoleNameWarnings(SpecWith({{"db", 1}, {"head", 1}, {"worker", 1}})).empty());
}

TEST(UntrackedRoleWarningsTest, ANameThatIsNoRoleIsNamedWithTheKeyAndTheClosestRole) {
  Configuration conf = Configuration::WithDefaults();
  ASSERT_TRUE(conf.AddOverride("tony.application.untracked.jobtypes=ps,pss,loader").ok());
  auto w = UntrackedRoleWarnings(conf, SpecWith({{"ps", 1}, {"worker", 2}}));
  ASSERT_EQ(w.size(), 2u);
  EXPECT_THAT(w[0], HasSubstr("tony.application.untracked.jobtypes names 'pss', which is no role"));
  EXPECT_THAT(w[0], HasSubstr("did you mean 'ps'?"));
  EXPECT_THAT(w[1], HasSubstr("'loader'"));
  EXPECT_THAT(w[1], Not(HasSubstr("did you mean")));
}

TEST(UntrackedRoleWarningsTest, TheBuiltInDefaultNeverWarns) {
  // TonY's default "ps" in a job without ps: nothing was asked for, nothing to say.
  EXPECT_TRUE(
      UntrackedRoleWarnings(Configuration::WithDefaults(), SpecWith({{"worker", 2}})).empty());
}

}  // namespace
}  // namespace tony
