// common/files.h: directories tony makes get the mode it asks for, or an error naming them.
#include "common/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

namespace tony {
namespace {

TEST(MakeDirsTest, AnExistingDirectoryGetsTheModeAsked) {
  std::string dir = (std::filesystem::path(::testing::TempDir()) / "makedirs-mode").string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ::chmod(dir.c_str(), 0777);
  ASSERT_TRUE(MakeDirs(dir, 0700).ok());
  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700U);
  std::filesystem::remove_all(dir);
}

// A directory whose mode cannot be set (procfs refuses even root) is an error naming it, never
// used as it is.
TEST(MakeDirsTest, ADirectoryWhoseModeCannotBeSetIsAnError) {
  Status s = MakeDirs("/proc/1", 0700);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot set mode 0700 on directory /proc/1"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace tony
