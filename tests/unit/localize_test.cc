// CheckEntryPath: Localize never unpacks through a symlink that leaves the task's working
// directory (executor/localize.h). On a real temporary directory.
#include "executor/localize.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/files.h"

namespace tony {
namespace {

namespace fs = std::filesystem;

class CheckEntryPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = MakeTempDir(fs::temp_directory_path().string(), "tony-localize-");
    ASSERT_TRUE(dir.ok());
    root_ = *dir + "/work";
    outside_ = *dir + "/outside";
    fs::create_directories(root_ + "/data");
    fs::create_directories(outside_);
  }
  void TearDown() override { fs::remove_all(fs::path(root_).parent_path()); }
  std::string root_, outside_;
};

TEST_F(CheckEntryPathTest, PlainPathsAndLinksWithinTheDirectoryPass) {
  fs::create_directory_symlink("data", root_ + "/inside");
  EXPECT_TRUE(CheckEntryPath("venv.zip", root_, "venv", "bin/python3").ok());
  EXPECT_TRUE(CheckEntryPath("src.zip", root_, ".", "inside/file.txt").ok());
  EXPECT_TRUE(CheckEntryPath("src.zip", root_, ".", "new/dir/file.txt").ok());
}

TEST_F(CheckEntryPathTest, APathThroughALinkLeavingTheDirectoryIsRefusedNamingBoth) {
  fs::create_directory_symlink(outside_, root_ + "/venv");
  Status s = CheckEntryPath("venv.zip", root_, "venv", "lib/site.py");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("entry 'lib/site.py'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("symlink 'venv' -> '" + outside_ + "'"), std::string::npos)
      << s.message();
  fs::create_directory_symlink("../../outside", root_ + "/data/up");
  EXPECT_FALSE(CheckEntryPath("src.zip", root_, ".", "data/up/x").ok());
}

}  // namespace
}  // namespace tony
