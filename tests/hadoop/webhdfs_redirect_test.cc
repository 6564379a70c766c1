// What WebHDFS does with what a NameNode or DataNode sends back: a 307 is followed only to http
// or https (a rogue NameNode's file:// Location must not make CREATE write, or OPEN read, a local
// file), and a reply body read into memory is refused past its limit.
#include <gtest/gtest.h>

#include <string>

#include "common/files.h"
#include "hadoop/hdfs/webhdfs.h"
#include "tests/hadoop/http_stub.h"

namespace tony::hadoop {
namespace {

class WebHdfsRedirectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = MakeTempDir(::testing::TempDir(), "webhdfs_redirect_test.");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_ = *dir;
    victim_ = dir_ + "/victim";
    ASSERT_TRUE(WriteFileAtomic(victim_, "the user's own file\n").ok());
  }
  void TearDown() override { (void)RemoveAll(dir_); }

  std::string dir_;
  std::string victim_;
};

TEST_F(WebHdfsRedirectTest, CreateRedirectedToAFileUrlFailsAndLeavesTheFileAlone) {
  std::string location = "file://" + victim_;
  HttpStub namenode("HTTP/1.1 307 Temporary Redirect", "", 1, "Location: " + location + "\r\n");
  hdfs::WebHdfs fs(namenode.address(), "me");
  Status st = fs.Create("/user/me/job.zip", "overwritten by a rogue NameNode");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kPermissionDenied);
  for (const std::string& part :
       {std::string("CREATE /user/me/job.zip"), "NameNode " + namenode.address(), location,
        std::string("only http:// and https://")}) {
    EXPECT_NE(st.message().find(part), std::string::npos) << part << " not in " << st.message();
  }
  auto content = ReadFile(victim_);
  ASSERT_TRUE(content.ok()) << content.status().ToString();
  EXPECT_EQ(*content, "the user's own file\n");
}

TEST_F(WebHdfsRedirectTest, OpenRedirectedToAFileUrlFailsWithoutTheFilesContent) {
  std::string location = "FILE://" + victim_;  // the scheme is case-insensitive
  HttpStub namenode("HTTP/1.1 307 Temporary Redirect", "", 1, "Location: " + location + "\r\n");
  hdfs::WebHdfs fs(namenode.address(), "me");
  auto bytes = fs.Open("/user/me/model.bin");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(bytes.status().message().find("OPEN /user/me/model.bin"), std::string::npos)
      << bytes.status().message();
  // The path, not the whole Location: libcurl lowercases the scheme.
  EXPECT_NE(bytes.status().message().find(victim_), std::string::npos) << bytes.status().message();
  EXPECT_EQ(bytes.status().message().find("the user's own file"), std::string::npos)
      << bytes.status().message();
}

TEST_F(WebHdfsRedirectTest, HttpRedirectsToTheDataNodeAreFollowed) {
  HttpStub datanode("HTTP/1.1 200 OK", "the bytes", 1);
  HttpStub namenode("HTTP/1.1 307 Temporary Redirect", "", 1,
                    "Location: http://" + datanode.address() + "/webhdfs/v1/x?op=OPEN\r\n");
  hdfs::WebHdfs fs(namenode.address(), "me");
  auto bytes = fs.Open("/x");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ(*bytes, "the bytes");

  HttpStub created("HTTP/1.1 201 Created", "", 1);
  HttpStub namenode2("HTTP/1.1 307 Temporary Redirect", "", 1,
                     "Location: http://" + created.address() + "/webhdfs/v1/y?op=CREATE\r\n");
  hdfs::WebHdfs fs2(namenode2.address(), "me");
  Status st = fs2.Create("/y", "some bytes");
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(created.served.load(), 1);
}

TEST_F(WebHdfsRedirectTest, HttpGetRefusesANonHttpUrl) {
  auto body = hdfs::HttpGet("file://" + victim_);
  ASSERT_FALSE(body.ok());
  EXPECT_NE(body.status().message().find("only http:// and https://"), std::string::npos)
      << body.status().message();
}

TEST_F(WebHdfsRedirectTest, AnOversizedReplyIsRefusedNamingTheLimit) {
  HttpStub namenode("HTTP/1.1 200 OK", std::string(hdfs::kMaxJsonReplyBytes + 1, ' '), 1);
  hdfs::WebHdfs fs(namenode.address(), "me");
  auto st = fs.GetFileStatus("/x");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(st.status().message().find("op=GETFILESTATUS"), std::string::npos)
      << st.status().message();
  EXPECT_NE(
      st.status().message().find("limit of " + std::to_string(hdfs::kMaxJsonReplyBytes) + " bytes"),
      std::string::npos)
      << st.status().message();

  HttpStub logs("HTTP/1.1 200 OK", "eleven byte", 1);
  auto body = hdfs::HttpGet("http://" + logs.address() + "/am.log", 10);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(body.status().message().find("limit of 10 bytes"), std::string::npos)
      << body.status().message();
}

}  // namespace
}  // namespace tony::hadoop
