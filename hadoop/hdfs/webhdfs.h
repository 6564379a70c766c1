// WebHDFS client over libcurl (HADOOP-IPC.md §6): what tony needs to stage a job.
//
// Base URL http://<dfs.namenode.http-address>/webhdfs/v1<path>?op=...&user.name=<user>; on an
// insecure cluster the user is whatever user.name says. CREATE and OPEN are two steps: the
// NameNode redirects (307) to a DataNode, which takes or serves the bytes.
// Thread-safety: each call uses its own curl handle; an instance may be shared.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace tony::hadoop::hdfs {

struct FileStatus {
  int64_t length = 0;
  int64_t modification_time = 0;  // ms since the epoch: LocalResource.timestamp (§5)
  std::string type;               // FILE, DIRECTORY or SYMLINK
  std::string permission;         // octal, e.g. "644"
  std::string owner;
};

// A plain HTTP GET (e.g. a NodeManager's container log web service): the body on 200, else an
// error with the status code and the start of the body.
Result<std::string> HttpGet(const std::string& url);

class WebHdfs {
 public:
  // `http_address`: "host:port" of the NameNode's HTTP server (dfs.namenode.http-address).
  WebHdfs(std::string http_address, std::string user);

  Status Mkdirs(const std::string& path, const std::string& permission = "755");
  // Two-step CREATE (§6); overwrites. The bytes come from memory or from a local file.
  Status Create(const std::string& path, const std::string& data,
                const std::string& permission = "644");
  Status CreateFromFile(const std::string& path, const std::string& local_path,
                        const std::string& permission = "644");
  Result<FileStatus> GetFileStatus(const std::string& path);
  Result<std::string> Open(const std::string& path);
  // True when something was deleted; false when the path did not exist.
  Result<bool> Delete(const std::string& path, bool recursive = true);

  const std::string& user() const { return user_; }

 private:
  std::string Url(const std::string& path, const std::string& op_and_params) const;
  Status CreateImpl(const std::string& path, const std::string* data, const std::string* local_path,
                    const std::string& permission);

  std::string http_address_;
  std::string user_;
};

}  // namespace tony::hadoop::hdfs
