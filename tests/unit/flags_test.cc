#include "cli/flags.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "cli/help.h"
#include "config/keys.h"

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
  EXPECT_EQ(f.status().message().rfind("unknown flag --execute", 0), 0u) << f.status().message();
  EXPECT_NE(f.status().message().find("did you mean --executes"), std::string::npos);
}

TEST(FlagsTest, MissingValueAndRepeatsOfSingleFlagsAreErrorsThatNameTheFlag) {
  auto missing = ParseFlags({"--executes"}, kSpecs);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "flag --executes needs a value");
  auto twice = ParseFlags({"--executes", "a", "--executes", "b"}, kSpecs);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(), "flag --executes given more than once");
  auto valued = ParseFlags({"--debug=yes"}, kSpecs);
  ASSERT_FALSE(valued.ok());
  EXPECT_EQ(valued.status().message(), "flag --debug takes no value");
  // A flag that may repeat is no error.
  EXPECT_TRUE(ParseFlags({"--conf", "a=1", "--conf", "b=2"}, kSpecs).ok());
}

TEST(FlagsTest, OneLetterAliasesAndDashHForHelp) {
  const std::vector<FlagSpec> specs = {
      {"follow", false, false, "", 'f'}, {"tail", true, false, ""}, {"help", false, false, ""}};
  auto f = ParseFlags({"-f", "--tail", "3", "-h"}, specs);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->Has("follow"));
  EXPECT_TRUE(f->Has("help"));
  EXPECT_EQ(f->Get("tail"), "3");
  EXPECT_NE(FlagsHelp(specs).find("--follow, -f"), std::string::npos);
  // Without a help flag, -h is just unknown.
  auto g = ParseFlags({"-h"}, kSpecs);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "unknown flag -h");
}

TEST(FlagsTest, WantsHelpStopsAtDoubleDash) {
  EXPECT_TRUE(WantsHelp({"x", "--help"}));
  EXPECT_TRUE(WantsHelp({"-h"}));
  EXPECT_TRUE(WantsHelp({"-help"}));
  EXPECT_FALSE(WantsHelp({"x", "--", "-h"}));
  EXPECT_FALSE(WantsHelp({"--helpful"}));
}

TEST(HelpTest, EverySubcommandHasHelpAndUnknownHasNone) {
  for (const char* cmd :
       {"submit", "status", "kill", "logs", "am", "executor", "bundle", "version", "help"}) {
    std::string help = CommandHelp(cmd);
    EXPECT_EQ(help.rfind(std::string("usage: tony ") + cmd, 0), 0u) << cmd << ": " << help;
  }
  EXPECT_EQ(CommandHelp("nosuch"), "");
  EXPECT_NE(CommandHelp("logs").find("--follow, -f"), std::string::npos);
  EXPECT_NE(CommandHelp("submit").find("--shell_env"), std::string::npos);
}

// The keys the submit flags name are config/'s: each is one the key table knows, and the help
// reads as it always did.
TEST(HelpTest, SubmitHelpNamesKeysOfTheKeyTable) {
  const std::string help = CommandHelp("submit");
  EXPECT_NE(help.find("override a key: --conf tony.worker.instances=4"), std::string::npos);
  EXPECT_NE(help.find("K=V for the user process (tony.execution.envs); K alone: K=\"\""),
            std::string::npos);
  EXPECT_NE(help.find("the keytab of --principal (tony.kerberos.keytab)"), std::string::npos);
  const std::regex key(R"((?:^|[ (])(tony\.[a-z][a-z0-9.<>-]*[a-z]))");
  int named = 0;
  for (auto it = std::sregex_iterator(help.begin(), help.end(), key); it != std::sregex_iterator();
       ++it) {
    const std::string name = (*it)[1];
    if (name == "tony.xml") continue;  // the default job file
    EXPECT_NE(FindKeySpec(name), nullptr) << name;
    ++named;
  }
  EXPECT_GE(named, 7);
}

}  // namespace
}  // namespace tony::cli
