#include "engine/yarn/client/yarn_view.h"

#include <algorithm>

#include "client/warnings.h"
#include "common/strings.h"
#include "config/key_names.h"
#include "engine/yarn/client/yarn_cluster.h"
#include "hadoop/hdfs/webhdfs.h"
#include "hadoop/yarn/records.h"
#include "history/job_dir.h"

namespace tony::client {
namespace {

namespace yarn = hadoop::yarn;
namespace pb = hadoop::yarn::pb;

// A live status.json: a task table, far below this.
constexpr size_t kMaxStatusBytes = 16 << 20;

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

// The application's tracking URL as the RM reports it: its web proxy's /proxy/<app>/, which
// answers for the AM (the AM's own endpoint answers the proxy only, coordinator/status_http.h).
// An RM that reports its proxy on port 0 (it was told to bind an ephemeral port, as on a
// minicluster) cannot be reached there: the proxy of our configuration takes its place
// (hadoop::ClusterConf::WebProxyAddresses). Empty before the AM registered its endpoint.
std::string ProxyStatusUrl(const pb::ApplicationReportProto& report,
                           const hadoop::ClusterConf& conf) {
  if (report.originaltrackingurl().empty() || report.originaltrackingurl() == "N/A") return "";
  std::string url = report.trackingurl();
  size_t scheme = url.find("://");
  if (scheme == std::string::npos || !(StartsWith(url, "http://") || StartsWith(url, "https://"))) {
    return "";
  }
  size_t path = url.find('/', scheme + 3);
  std::string authority =
      url.substr(scheme + 3, path == std::string::npos ? std::string::npos : path - scheme - 3);
  if (EndsWith(authority, ":0") && !conf.WebProxyAddresses().empty()) {
    url = url.substr(0, scheme + 3) + conf.WebProxyAddresses().front() +
          (path == std::string::npos ? "/" : url.substr(path));
  }
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
    // The RM's report to a caller outside the view ACL says "N/A" for the AM's host and URLs
    // (RMAppImpl.createAndGetApplicationReport); a RUNNING application's AM registered its host.
    bool withheld = report->host() == "N/A" && report->originaltrackingurl() == "N/A";
    std::string url = withheld ? "" : ProxyStatusUrl(*report, rm.cluster.conf);
    hadoop::hdfs::HttpGetOptions get;
    get.max_bytes = kMaxStatusBytes;
    get.negotiate = rm.cluster.conf.kerberos;
    get.trust = rm.cluster.webhdfs.trust;  // the proxy is https where yarn.http.policy says so
    // A standalone web proxy (yarn.web-proxy.address) on a Kerberized cluster first shows a user
    // who does not own the application a warning page; this cookie is how a browser says the
    // user went on (WebAppProxyServlet). The RMs' own proxy shows none.
    get.headers.push_back("Cookie: checked_" + app_id + "=true");
    if (withheld) {
      why_not_live = "user " + rm.cluster.user +
                     " may not view its details: the ResourceManager withholds them from users "
                     "outside its view ACL (" +
                     keys::kApplicationViewAcls + ")";
    } else if (url.empty()) {
      why_not_live = "the AM has not registered its status endpoint yet";
    } else if (auto body = hadoop::hdfs::HttpGet(url, get); !body.ok()) {
      why_not_live = "the ResourceManager's web proxy " + url +
                     " did not answer for the AM: " + body.status().message();
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

Result<hadoop::hdfs::HttpGetOptions> YarnWebAccess(const std::string& app_id, bool https) {
  hadoop::hdfs::HttpGetOptions get;
  auto cluster = LoadCluster(HadoopConfDirOf(app_id), ClusterKeysOf(app_id));
  if (!cluster.ok()) {
    if (https) return cluster.status();
    // A plain http page may still answer; if it asks for SPNEGO, this says why tony did not.
    WarnIfFailed(cluster.status(),
                 "reading " + app_id + "'s logs without its cluster's settings (no SPNEGO)");
    return get;
  }
  get.trust = cluster->webhdfs.trust;
  get.negotiate = cluster->conf.kerberos;
  return get;
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
