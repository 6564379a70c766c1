// ParseHostPort and ParseAuthority (common/net.h): the one reader of "host:port" settings, and
// what its errors tell a user about a bad one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/net.h"

namespace tony {
namespace {

using ::testing::HasSubstr;

TEST(HostPortTest, NamesAddressesAndBracketedIpv6) {
  auto a = ParseHostPort("nn.example.com:8020", "fs.defaultFS");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->host, "nn.example.com");
  EXPECT_EQ(a->port, 8020);
  EXPECT_EQ(a->ToString(), "nn.example.com:8020");

  auto v6 = ParseHostPort("[::1]:8020", "fs.defaultFS");
  ASSERT_TRUE(v6.ok()) << v6.status().ToString();
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 8020);
  EXPECT_EQ(v6->ToString(), "[::1]:8020");

  auto blanks = ParseHostPort(" 0.0.0.0:65535 ", "");
  ASSERT_TRUE(blanks.ok()) << blanks.status().ToString();
  EXPECT_EQ(blanks->host, "0.0.0.0");
  EXPECT_EQ(blanks->port, 65535);
}

// Each bad input: its message names where it came from, the input and the reason.
TEST(HostPortTest, BadInputsNameTheOriginTheInputAndTheReason) {
  const std::string where = "yarn.resourcemanager.address in /etc/hadoop/yarn-site.xml";
  struct Case {
    const char* text;
    const char* reason;
  };
  for (const Case& c :
       {Case{"", "it is empty"}, Case{"rm", "there is no port"}, Case{"rm:", "the port is empty"},
        Case{":8032", "there is no host"}, Case{"rm:http", "the port \"http\" is not a number"},
        Case{"rm:80x", "the port \"80x\" is not a number"},
        Case{"rm:-1", "the port \"-1\" is not a number"},
        Case{"rm:0", "the port 0 is not in 1-65535"},
        Case{"rm:65536", "the port 65536 is not in 1-65535"},
        Case{"rm:99999999999999999999999", "is not in 1-65535"},
        Case{"::1:8020", "an IPv6 address needs brackets, e.g. [::1]:8020"},
        Case{"[::1:8020", "the '[' of an IPv6 address is not closed"},
        Case{"[::1]8020", "only \":<port>\" may follow the ']'"}, Case{"[::1]", "there is no port"},
        Case{"[]:8020", "there is no host"},
        // Found by fuzzing: "[[2]:8" read as host "[2", which printed back as "[2:8".
        Case{"[[2]:8", "brackets hold an IPv6 address, not \"[2\""},
        Case{"[rm]:8032", "brackets hold an IPv6 address, not \"rm\""},
        Case{"r]m:8032", "'[' and ']' belong only around an IPv6 address"}}) {
    auto r = ParseHostPort(c.text, where);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_THAT(r.status().message(),
                HasSubstr(where + ": expected host:port, got \"" + c.text + "\": "));
    EXPECT_THAT(r.status().message(), HasSubstr(c.reason)) << c.text;
  }
}

TEST(HostPortTest, WithoutAnOriginTheMessageStartsWithWhatWasExpected) {
  auto r = ParseHostPort("rm", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "expected host:port, got \"rm\": there is no port");
}

TEST(AuthorityTest, HostWithOrWithoutPortAndAnEmptyAuthority) {
  auto plain = ParseAuthority("nameservice1", "fs.defaultFS");
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->host, "nameservice1");
  EXPECT_FALSE(plain->port.has_value());

  auto with_port = ParseAuthority("nn:9870", "fs.defaultFS");
  ASSERT_TRUE(with_port.ok()) << with_port.status().ToString();
  EXPECT_EQ(with_port->host, "nn");
  EXPECT_EQ(with_port->port, 9870);

  auto v6 = ParseAuthority("[fe80::1]", "fs.defaultFS");
  ASSERT_TRUE(v6.ok()) << v6.status().ToString();
  EXPECT_EQ(v6->host, "fe80::1");
  EXPECT_FALSE(v6->port.has_value());

  auto empty = ParseAuthority("", "fs.defaultFS");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->host, "");
  EXPECT_FALSE(empty->port.has_value());
}

TEST(AuthorityTest, BadPortsNameTheOriginAndTheReason) {
  for (const char* bad : {"nn:", "nn:x", "nn:0", "nn:70000", "fe80::1", "[fe80::1"}) {
    auto r = ParseAuthority(bad, "tony.other.namenodes");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.status().message(),
                HasSubstr("tony.other.namenodes: expected host[:port], got \"" + std::string(bad) +
                          "\": "));
  }
}

}  // namespace
}  // namespace tony
