#include "client/yarn_view.h"

#include <algorithm>

#include "client/yarn_cluster.h"
#include "common/strings.h"
#include "hadoop/hdfs/webhdfs.h"
#include "hadoop/yarn/records.h"
#include "history/job_dir.h"

namespace tony::client {
namespace {

namespace yarn = hadoop::yarn;
namespace pb = hadoop::yarn::pb;

struct Rm {
  Cluster cluster;
  std::unique_ptr<yarn::ApplicationClient> client;
};

Result<Rm> ConnectFor(const std::string& conf_dir, const Configuration& keys = Configuration()) {
  Rm rm;
  TONY_ASSIGN_OR_RETURN(rm.cluster, LoadCluster(conf_dir, keys));
  TONY_ASSIGN_OR_RETURN(rm.client, ConnectRm(rm.cluster));
  return rm;
}

// The AM's own URL (what it registered), not the RM's proxy: the proxy may need a browser's
// login, the AM's endpoint answers anyone who can reach it.
std::string AmStatusUrl(const pb::ApplicationReportProto& report) {
  const std::string& url = report.originaltrackingurl();
  if (!StartsWith(url, "http://")) return "";
  return url;
}

// The report says the job's outcome once the AM unregistered (FINISHING included).
bool Decided(const pb::ApplicationReportProto& report) {
  return yarn::IsTerminal(report.yarn_application_state()) ||
         (report.has_final_application_status() &&
          report.final_application_status() != pb::APP_UNDEFINED);
}

}  // namespace

Result<rpc::JobStatus> YarnJobStatus(const std::string& app_id, rpc::JobStatus last) {
  TONY_ASSIGN_OR_RETURN(pb::ApplicationIdProto app, yarn::ParseApplicationId(app_id));
  last.set_job_id(app_id);
  if (last.engine().empty()) last.set_engine("yarn");
  TONY_ASSIGN_OR_RETURN(Rm rm, ConnectFor(HadoopConfDirOf(app_id), ClusterKeysOf(app_id)));
  auto report = rm.client->GetApplicationReport(app);
  if (!report.ok()) return report.status().WithContext("asking the ResourceManager for " + app_id);
  std::string state(yarn::ApplicationStateName(report->yarn_application_state()));
  std::string why_not_live;
  if (report->yarn_application_state() == pb::RUNNING) {
    // Live: the AM's read-only status endpoint has the task table (the control plane needs the
    // job secret, which only the job's own processes hold).
    std::string url = AmStatusUrl(*report);
    if (url.empty()) {
      why_not_live = "the AM has not registered its status endpoint yet";
    } else if (auto body = hadoop::hdfs::HttpGet(url); !body.ok()) {
      why_not_live =
          "the AM's status endpoint " + url + " did not answer: " + body.status().message();
    } else if (auto live = history::ParseJobStatus(*body, url); !live.ok()) {
      why_not_live = live.status().message();
    } else {
      if (live->engine().empty()) live->set_engine("yarn");
      return live;
    }
  }
  if (Decided(*report)) {
    ApplyFinalReport(*report, app_id, &last);
    return last;
  }
  if (last.start_wall_ms() == 0) last.set_start_wall_ms(report->starttime());
  last.set_phase(rpc::RUNNING);
  last.set_message("YARN application " + app_id + " is " + state +
                   (why_not_live.empty() ? "" : " (" + why_not_live + ")"));
  return last;
}

Result<std::vector<std::string>> AmContainerLogUrls(const std::string& app_id) {
  TONY_ASSIGN_OR_RETURN(pb::ApplicationIdProto app, yarn::ParseApplicationId(app_id));
  TONY_ASSIGN_OR_RETURN(Rm rm, ConnectFor(HadoopConfDirOf(app_id), ClusterKeysOf(app_id)));
  TONY_ASSIGN_OR_RETURN(auto report, rm.client->GetApplicationReport(app));
  if (!report.has_currentapplicationattemptid()) {
    return NotFound("application " + app_id + " has no attempt yet (" +
                    std::string(yarn::ApplicationStateName(report.yarn_application_state())) + ")");
  }
  TONY_ASSIGN_OR_RETURN(
      auto attempt, rm.client->GetApplicationAttemptReport(report.currentapplicationattemptid()));
  if (!attempt.has_am_container_id()) {
    return NotFound("application " + app_id + " has no AM container yet");
  }
  std::string container = yarn::ContainerIdString(attempt.am_container_id());
  // yarn.http.policy=HTTPS_ONLY: the NodeManagers' web addresses are their https ones.
  std::string cluster_scheme = rm.cluster.conf.yarn_https ? "https" : "http";
  auto url_on = [&container](const std::string& scheme, const std::string& node_http) {
    return scheme + "://" + node_http + "/ws/v1/node/containerlogs/" + container;
  };
  std::vector<std::string> urls;
  if (auto c = rm.client->GetContainerReport(attempt.am_container_id());
      c.ok() && !c->node_http_address().empty()) {
    // The container report's address has a scheme (WebAppUtils.getHttpSchemePrefix); only http
    // and https are spoken.
    std::string address = c->node_http_address();
    std::string scheme = cluster_scheme;
    if (size_t end = address.find("://"); end != std::string::npos) {
      scheme = ToLower(address.substr(0, end));
      address = address.substr(end + 3);
    }
    if (scheme == "http" || scheme == "https") urls.push_back(url_on(scheme, address));
  }
  // The RM forgets a finished container; its NodeManager still has the logs. The attempt names
  // the AM's host, not which NodeManager on it.
  if (auto nodes = rm.client->GetClusterNodes(); nodes.ok()) {
    for (const auto& n : *nodes) {
      if (n.httpaddress().empty() || (!attempt.host().empty() && attempt.host() != "N/A" &&
                                      n.nodeid().host() != attempt.host())) {
        continue;
      }
      std::string url = url_on(cluster_scheme, n.httpaddress());
      if (std::find(urls.begin(), urls.end(), url) == urls.end()) urls.push_back(url);
    }
  }
  if (urls.empty()) return NotFound("no NodeManager found for the AM container " + container);
  return urls;
}

Result<hadoop::hdfs::TlsTrust> YarnWebTrust(const std::string& app_id) {
  TONY_ASSIGN_OR_RETURN(Cluster cluster,
                        LoadCluster(HadoopConfDirOf(app_id), ClusterKeysOf(app_id)));
  return cluster.webhdfs.trust;
}

Result<std::vector<YarnApplicationRow>> ListYarnApplications() {
  std::vector<YarnApplicationRow> rows;
  std::string conf_dir = hadoop::HadoopConfDir();
  if (conf_dir.empty()) return rows;
  TONY_ASSIGN_OR_RETURN(Rm rm, ConnectFor(conf_dir));
  TONY_ASSIGN_OR_RETURN(auto apps, rm.client->GetApplications("TONY", rm.cluster.user));
  for (const auto& a : apps) {
    YarnApplicationRow r;
    r.id = yarn::ApplicationIdString(a.applicationid());
    r.name = a.name();
    r.user = a.user();
    r.start_ms = a.starttime();
    r.finish_ms = a.finishtime();
    r.ended = yarn::IsTerminal(a.yarn_application_state());
    r.state = r.ended ? std::string(yarn::FinalStatusName(a.final_application_status()))
                      : std::string(yarn::ApplicationStateName(a.yarn_application_state()));
    if (a.yarn_application_state() == pb::KILLED) r.state = "KILLED";
    r.message = a.diagnostics() == "N/A" ? "" : a.diagnostics();
    rows.push_back(r);
  }
  return rows;
}

}  // namespace tony::client
