// The ApplicationSubmissionContext tony sends (hadoop/yarn/clients.h BuildSubmissionContext):
// the application's ACLs in the AM's launch context, as TonY sets them, and its AM attempts.
#include <gtest/gtest.h>

#include "hadoop/yarn/clients.h"

namespace tony::hadoop::yarn {
namespace {

std::string AclOf(const pb::ApplicationSubmissionContextProto& c,
                  pb::ApplicationAccessTypeProto type) {
  for (const auto& entry : c.am_container_spec().application_acls()) {
    if (entry.accesstype() == type) return entry.acl();
  }
  return "<unset>";
}

TEST(SubmissionTest, CarriesTheApplicationAcls) {
  Submission s;
  auto tony_defaults = BuildSubmissionContext(s);
  EXPECT_EQ(tony_defaults.am_container_spec().application_acls_size(), 2);
  EXPECT_EQ(AclOf(tony_defaults, pb::APPACCESS_VIEW_APP), "*");
  EXPECT_EQ(AclOf(tony_defaults, pb::APPACCESS_MODIFY_APP), " ");
  s.view_acl = "alice,bob analysts";
  s.modify_acl = " admins";
  auto ours = BuildSubmissionContext(s);
  EXPECT_EQ(AclOf(ours, pb::APPACCESS_VIEW_APP), "alice,bob analysts");
  EXPECT_EQ(AclOf(ours, pb::APPACCESS_MODIFY_APP), " admins");
}

// docs/am-restart.md §2: attempts and kept containers as the Submission says; by default one
// attempt whose containers go with it.
TEST(SubmissionTest, CarriesTheAttemptsAndWhetherContainersOutliveAnAttempt) {
  Submission s;
  auto one = BuildSubmissionContext(s);
  EXPECT_EQ(one.maxappattempts(), 1);
  EXPECT_FALSE(one.keep_containers_across_application_attempts());
  s.max_attempts = 3;
  s.keep_containers = true;
  auto kept = BuildSubmissionContext(s);
  EXPECT_EQ(kept.maxappattempts(), 3);
  EXPECT_TRUE(kept.has_keep_containers_across_application_attempts());
  EXPECT_TRUE(kept.keep_containers_across_application_attempts());
}

}  // namespace
}  // namespace tony::hadoop::yarn
