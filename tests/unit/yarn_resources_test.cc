#include <gtest/gtest.h>

#include "engine/yarn_contract.h"

namespace tony::engine {
namespace {

TEST(YarnResourcesTest, ListingKeepsTheArchiveType) {
  std::vector<YarnResource> in = {
      {"tony-bundle", {"hdfs", "nn", 8020, "/s/tony-bundle.tar.gz", 10, 20}, true, {}},
      {"tony-final.xml", {"hdfs", "nn", 8020, "/s/tony-final.xml", 3, 4}, false, {}}};
  auto out = ParseYarnResources(FormatYarnResources(in));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_TRUE((*out)[0].archive);
  EXPECT_EQ((*out)[0].file.path, "/s/tony-bundle.tar.gz");
  EXPECT_FALSE((*out)[1].archive);
  EXPECT_FALSE(ParseYarnResources("a\thdfs\tnn\t1\t/p\t1\t2\tZIP\n").ok());
}

// An HA nameservice's files are hdfs://<ns>/path: no port (-1). The AM must read them back; a
// port outside 16 bits is still refused.
TEST(YarnResourcesTest, NameserviceWithoutAPortRoundTripsAndBadPortsAreRefused) {
  std::vector<YarnResource> in = {
      {"tony-bundle", {"hdfs", "tonyns", -1, "/s/tony-bundle.tar.gz", 10, 20}, true, {}}};
  auto out = ParseYarnResources(FormatYarnResources(in));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].file.host, "tonyns");
  EXPECT_EQ((*out)[0].file.port, -1);
  EXPECT_FALSE(ParseYarnResources("a\thdfs\tnn\t65536\t/p\t1\t2\n").ok());
  EXPECT_FALSE(ParseYarnResources("a\thdfs\tnn\t-2\t/p\t1\t2\n").ok());
}

// A tony.<role>.resources entry goes to that role's containers only; the listing keeps the roles.
TEST(YarnResourcesTest, RolesRoundTripAndLimitWhoGetsIt) {
  std::vector<YarnResource> in = {
      {"vocab.txt", {"hdfs", "nn", 8020, "/s/vocab.txt", 1, 2}, false, {"worker", "chief"}},
      {"all.txt", {"hdfs", "nn", 8020, "/s/all.txt", 1, 2}, false, {}}};
  auto out = ParseYarnResources(FormatYarnResources(in));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0].roles, (std::vector<std::string>{"worker", "chief"}));
  EXPECT_TRUE((*out)[0].ForRole("chief"));
  EXPECT_FALSE((*out)[0].ForRole("ps"));
  EXPECT_TRUE((*out)[1].roles.empty());
  EXPECT_TRUE((*out)[1].ForRole("ps"));
}

}  // namespace
}  // namespace tony::engine
