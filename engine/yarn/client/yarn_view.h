// A YARN job seen from anywhere: what `tony status` and `tony logs` of an application id learn
// from the cluster, with or without a local record of the job (README "A YARN job seen from
// anywhere"). The ResourceManager's application report decides whether the job runs; while it
// runs, the AM's read-only status endpoint (its original tracking URL,
// coordinator/status_http.h) gives the live task table; once it ended, the report's final status
// and diagnostics (the AM's final message and a one-line task summary) say what happened.
// Thread-safety: call from the command's thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "hadoop/hdfs/tls.h"
#include "hadoop/hdfs/webhdfs.h"
#include "rpc/tony.pb.h"

namespace tony::client {

// The job as the cluster sees it. `last` is the local record (empty without one): its tasks are
// kept when the AM is gone. Needs HADOOP_CONF_DIR (or the conf dir the job was submitted with).
Result<rpc::JobStatus> YarnJobStatus(const std::string& app_id, rpc::JobStatus last);

// Where the AM container's logs are: http://<NodeManager>/ws/v1/node/containerlogs/<container>
// (https:// when the report's address says so or yarn.http.policy is HTTPS_ONLY), from the
// attempt's AM container and the RM's container report, or, once the RM forgot the container,
// every NodeManager on the AM's host (candidates, best first).
Result<std::vector<std::string>> AmContainerLogUrls(const std::string& app_id);

// How to read a web page of the cluster of `app_id` (a NodeManager's container logs): the CAs an
// https URL trusts (tony.application.ssl.ca-file as the job was submitted with, else the
// cluster's ssl-client.xml trust store, else the system's), and SPNEGO (the user's ticket) on a
// Kerberized cluster, whose web UIs ask for it. When the cluster's configuration cannot be
// loaded, an http URL is read plainly (as a job submitted elsewhere can only be) and an https one
// is an error.
Result<hadoop::hdfs::HttpGetOptions> YarnWebAccess(const std::string& app_id, bool https);

// One of the user's TONY applications, as the RM lists them.
struct YarnApplicationRow {
  std::string id, name, user, state, message;
  int64_t start_ms = 0, finish_ms = 0;
  bool ended = false;
};
// The user's applications of type TONY on the cluster HADOOP_CONF_DIR names; empty when it is not
// set.
Result<std::vector<YarnApplicationRow>> ListYarnApplications();

}  // namespace tony::client
