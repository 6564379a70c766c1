// TailText: the stderr tail that goes into a failure message (executor/executor.cc).
#include <gtest/gtest.h>

#include <string>

#include "common/strings.h"

namespace tony {
namespace {

TEST(TailText, KeepsTheLastLinesOfNewlineSeparatedText) {
  EXPECT_EQ(TailText("a\nb\nc\nd\n", 2, 100), (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(TailText("a\r\nb\r\n", 5, 100), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(TailText("", 5, 100), (std::vector<std::string>{}));
}

TEST(TailText, ACarriageReturnEndsALineAsAProgressBarRedraws) {
  EXPECT_EQ(TailText(" 10%\r 20%\r 30%\nError: boom\n", 2, 100),
            (std::vector<std::string>{" 30%", "Error: boom"}));
}

TEST(TailText, ASixMegabyteLineKeepsItsEndWithinTheByteCap) {
  std::string line(6 * 1024 * 1024, 'x');
  line += "the end";
  auto tail = TailText(line, 20, 8192);
  ASSERT_EQ(tail.size(), 1u);
  EXPECT_EQ(tail[0].size(), 8192u);
  EXPECT_EQ(tail[0].substr(0, 3), "...");
  EXPECT_EQ(tail[0].substr(tail[0].size() - 7), "the end");
}

TEST(TailText, TheByteCapCountsEveryLineNewestFirst) {
  std::string text = std::string(100, 'a') + "\n" + std::string(100, 'b') + "\n";
  auto tail = TailText(text, 20, 150);
  ASSERT_EQ(tail.size(), 2u);
  EXPECT_EQ(tail[1], std::string(100, 'b'));
  EXPECT_EQ(tail[0], "..." + std::string(47, 'a'));
}

}  // namespace
}  // namespace tony
