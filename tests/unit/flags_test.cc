#include "cli/flags.h"

#include <gtest/gtest.h>

namespace tony::cli {
namespace {

const std::vector<FlagSpec> kSpecs = {
    {"executes", true, false, ""}, {"conf", true, true, ""}, {"debug", false, false, ""}};

TEST(FlagsTest, AcceptsSingleAndDoubleDashWithSpaceOrEquals) {
  auto f = ParseFlags({"-executes", "a.py", "--conf=x=1", "-conf", "y=2", "--debug"}, kSpecs);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->Get("executes"), "a.py");
  EXPECT_EQ(f->All("conf"), (std::vector<std::string>{"x=1", "y=2"}));
  EXPECT_TRUE(f->Has("debug"));
}

TEST(FlagsTest, UnknownFlagSuggestsClosest) {
  auto f = ParseFlags({"--execute", "a.py"}, kSpecs);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("did you mean --executes"), std::string::npos);
}

TEST(FlagsTest, MissingValueAndRepeatsOfSingleFlagsAreErrors) {
  EXPECT_FALSE(ParseFlags({"--executes"}, kSpecs).ok());
  EXPECT_FALSE(ParseFlags({"--executes", "a", "--executes", "b"}, kSpecs).ok());
}

}  // namespace
}  // namespace tony::cli
