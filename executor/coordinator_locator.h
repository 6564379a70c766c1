// WebHdfsCoordinatorLocator: where the job's coordinator listens now, read from the AM's address
// file on HDFS (rpc/am_address.h; docs/am-restart.md §4). A YARN executor whose task rides out a
// lost coordinator (TaskRun's reconnect window) asks it every heartbeat interval; when a new AM
// attempt has written its address, the task dials that one.
//
// The lookup is a blocking WebHDFS read, so it runs on a thread of the locator's own and posts
// its answer to the loop. One lookup runs at a time (TaskRun asks again only after an answer).
// Thread-safety: construct, call and destroy on the loop's thread; the loop must outlive this.
// The destructor waits for a lookup in flight (bounded by WebHDFS's timeouts).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/status.h"
#include "executor/control_plane.h"
#include "executor/event_loop.h"
#include "hadoop/hdfs/webhdfs.h"

namespace tony {

// What an executor needs to read the address file: the staging dir and how to reach its
// NameNode, from the variables the AM's environment passed on (rpc/am_address.h), and where the
// container's delegation tokens are.
struct AmAddressSource {
  std::string staging_dir;
  std::string namenode_http;  // host:port[,host:port...]
  std::string user;           // user.name on an insecure cluster
  hadoop::hdfs::WebHdfsOptions web;
  // $HADOOP_TOKEN_FILE_LOCATION and $TONY_HDFS_TOKEN_SERVICE: the HDFS delegation token to read
  // with on a Kerberized cluster, read again at each lookup (the AM may have renewed it).
  std::string token_file;
  std::string token_service;
};

// The source from the executor's environment; kNotFound naming the variable when the staging
// dir or NameNode is not set (the local engine, a --debug job): there is no file to look for.
Result<AmAddressSource> AmAddressSourceFromEnvironment();

// Reads the address file once: the coordinator's host:port, or why not (the file's path in the
// message).
Result<std::string> ReadCoordinatorAddress(const AmAddressSource& source);

class WebHdfsCoordinatorLocator final : public CoordinatorLocator {
 public:
  // `look_up` runs on the locator's thread (ReadCoordinatorAddress in the executor; a fake in
  // tests/unit/coordinator_locator_test.cc).
  WebHdfsCoordinatorLocator(ExecutorLoop& loop, std::function<Result<std::string>()> look_up);
  ~WebHdfsCoordinatorLocator() override;
  WebHdfsCoordinatorLocator(const WebHdfsCoordinatorLocator&) = delete;
  WebHdfsCoordinatorLocator& operator=(const WebHdfsCoordinatorLocator&) = delete;

  // `done` runs on the loop's thread with the answer. A Locate while one is in flight gets
  // kUnavailable at once (also on the loop, later).
  void Locate(std::function<void(Result<std::string>)> done) override;

 private:
  ExecutorLoop& loop_;
  std::function<Result<std::string>()> look_up_;
  std::thread lookup_;
  bool in_flight_ = false;                                 // loop thread only
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // expires with this locator
};

}  // namespace tony
