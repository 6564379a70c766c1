// The ApplicationSubmissionContext tony sends (hadoop/yarn/clients.h BuildSubmissionContext):
// the application's ACLs in the AM's launch context, as TonY sets them.
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

}  // namespace
}  // namespace tony::hadoop::yarn
