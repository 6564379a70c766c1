#include "hadoop/yarn/cluster_conf.h"

#include <cstdlib>
#include <tuple>

#include "common/files.h"
#include "common/net.h"
#include "common/strings.h"

namespace tony::hadoop {
namespace {

// yarn-default.xml's ports (YarnConfiguration.getRMDefaultPortNumber).
constexpr int kRmPort = 8032;
constexpr int kSchedulerPort = 8030;
constexpr int kWebappPort = 8088;
constexpr int kWebappHttpsPort = 8090;
// hdfs-default.xml / HdfsClientConfigKeys.
constexpr int kNameNodeRpcPort = 8020;
constexpr char kNameNodeHttpDefault[] = "0.0.0.0:9870";
constexpr char kNameNodeHttpsDefault[] = "0.0.0.0:9871";
// yarn-default.xml: yarn.resourcemanager.connect.max-wait.ms, .retry-interval.ms.
constexpr int64_t kConnectMaxWaitMs = 900000;
constexpr int64_t kConnectRetryIntervalMs = 30000;

// Where a key was set, for errors: the file read, else the file it belongs in. Files Hadoop
// wrote carry a <source> per property ("programmatically", "yarn-site.xml") that config/ keeps;
// only a path names a file the user can open.
std::string SourceOf(const Configuration& c, const std::string& key, const std::string& fallback) {
  const ConfigValue* v = c.Find(key);
  return v != nullptr && StartsWith(v->source, "/") ? v->source : fallback;
}

Status CheckAddress(const Configuration& c, const std::string& key, const std::string& value,
                    const std::string& file) {
  if (value.find("_HOST") != std::string::npos) {
    return InvalidArgument(key + " is " + value + " in " + SourceOf(c, key, file) +
                           ": Hadoop replaces _HOST only in Kerberos principals; give the "
                           "server's host name");
  }
  return ParseHostPort(value, key + " in " + SourceOf(c, key, file)).status();
}

// DFSUtil.getInfoServer: a NameNode web address on the wildcard host (0.0.0.0:<port>) is reached
// at the NameNode's RPC host. `address` has been checked.
void WithRpcHost(const HostPort& rpc, std::string& address) {
  auto web = ParseHostPort(address, "");
  if (web.ok() && web->host == "0.0.0.0") address = HostPort{rpc.host, web->port}.ToString();
}

Result<std::optional<bool>> BoolKey(const Configuration& c, const std::string& key,
                                    const std::string& file) {
  auto v = c.Get(key);
  if (!v) return std::optional<bool>();
  auto b = ParseBool(Trim(*v));
  if (!b) {
    return InvalidArgument(key + " is \"" + *v + "\" in " + SourceOf(c, key, file) +
                           "; expected true or false");
  }
  return std::optional<bool>(*b);
}

Result<int64_t> IntKey(const Configuration& c, const std::string& key, int64_t fallback,
                       const std::string& file) {
  auto v = c.Get(key);
  if (!v) return fallback;
  auto n = ParseInt64(Trim(*v));
  if (!n) {
    return InvalidArgument(key + " is \"" + *v + "\" in " + SourceOf(c, key, file) +
                           "; expected a whole number");
  }
  return *n;
}

// One RM service address: <key>.<id>, else yarn.resourcemanager.hostname.<id>:<port>
// (HAUtil.checkAndSetRMRPCAddress); without HA <key>, else yarn.resourcemanager.hostname:<port>.
Result<std::string> RmAddress(const Configuration& c, const std::string& key, const std::string& id,
                              int port, const std::string& file) {
  std::string k = id.empty() ? key : key + "." + id;
  std::string value;
  if (auto v = c.Get(k); v && !Trim(*v).empty()) {
    value = std::string(Trim(*v));
  } else if (id.empty()) {
    value = c.GetOr("yarn.resourcemanager.hostname", "0.0.0.0") + ":" + std::to_string(port);
    k = "yarn.resourcemanager.hostname";
  } else {
    std::string host_key = "yarn.resourcemanager.hostname." + id;
    auto host = c.Get(host_key);
    if (!host || Trim(*host).empty()) {
      return InvalidArgument("neither " + k + " nor " + host_key + " is set in " + file +
                             " (yarn.resourcemanager.ha.rm-ids lists " + id + ")");
    }
    value = std::string(Trim(*host)) + ":" + std::to_string(port);
    k = host_key;
  }
  TONY_RETURN_IF_ERROR(CheckAddress(c, k, value, file));
  return value;
}

// Every ResourceManager's addresses: one, or each of an HA pair's rm-ids.
Status LoadRmAddresses(ClusterConf& cc, const std::string& yarn_site) {
  const Configuration& c = cc.raw;
  TONY_ASSIGN_OR_RETURN(auto ha, BoolKey(c, "yarn.resourcemanager.ha.enabled", yarn_site));
  cc.rm_ha = ha.value_or(false);
  std::vector<std::string> ids{""};
  if (cc.rm_ha) {
    ids = SplitTrimmed(c.GetOr("yarn.resourcemanager.ha.rm-ids", ""), ',');
    if (ids.empty()) {
      return InvalidArgument(
          "yarn.resourcemanager.ha.rm-ids is empty while yarn.resourcemanager.ha.enabled is true "
          "in " +
          SourceOf(c, "yarn.resourcemanager.ha.enabled", yarn_site) +
          "; list the ResourceManager ids, e.g. rm1,rm2");
    }
  }
  for (const auto& id : ids) {
    ResourceManagerAddresses rm;
    rm.id = id;
    TONY_ASSIGN_OR_RETURN(rm.address,
                          RmAddress(c, "yarn.resourcemanager.address", id, kRmPort, yarn_site));
    TONY_ASSIGN_OR_RETURN(
        rm.scheduler_address,
        RmAddress(c, "yarn.resourcemanager.scheduler.address", id, kSchedulerPort, yarn_site));
    // The web addresses only name the proxy the AM's status endpoint answers (WebProxyAddresses):
    // an RM of an HA pair configured without them (nor its hostname) is no reason to refuse the
    // job, as its RPC addresses are; it is left out of the proxy hosts.
    auto webapp = RmAddress(c, "yarn.resourcemanager.webapp.address", id, kWebappPort, yarn_site);
    if (webapp.ok()) rm.webapp_address = *webapp;
    auto webapp_https =
        RmAddress(c, "yarn.resourcemanager.webapp.https.address", id, kWebappHttpsPort, yarn_site);
    if (webapp_https.ok()) rm.webapp_https_address = *webapp_https;
    cc.resource_managers.push_back(std::move(rm));
  }
  return Status::Ok();
}

// How the client fails over between the ResourceManagers and retries one it cannot reach.
Status LoadRmFailover(ClusterConf& cc, const std::string& yarn_site) {
  const Configuration& c = cc.raw;
  // RMProxy.createRetryPolicy's HA branch.
  TONY_ASSIGN_OR_RETURN(int64_t wait, IntKey(c, "yarn.resourcemanager.connect.max-wait.ms",
                                             kConnectMaxWaitMs, yarn_site));
  TONY_ASSIGN_OR_RETURN(int64_t interval,
                        IntKey(c, "yarn.resourcemanager.connect.retry-interval.ms",
                               kConnectRetryIntervalMs, yarn_site));
  TONY_ASSIGN_OR_RETURN(int64_t base,
                        IntKey(c, "yarn.client.failover-sleep-base-ms", interval, yarn_site));
  TONY_ASSIGN_OR_RETURN(int64_t max,
                        IntKey(c, "yarn.client.failover-sleep-max-ms", interval, yarn_site));
  TONY_ASSIGN_OR_RETURN(int64_t attempts,
                        IntKey(c, "yarn.client.failover-max-attempts", -1, yarn_site));
  TONY_ASSIGN_OR_RETURN(int64_t retries, IntKey(c, "yarn.client.failover-retries", 0, yarn_site));
  if (base < 0 || max < 0) {
    return InvalidArgument(
        "yarn.client.failover-sleep-base-ms and -max-ms must not be negative (in " + yarn_site +
        ")");
  }
  if (attempts < 0) {
    // -1 for connect.max-wait.ms means "forever" in Hadoop; we stay bounded.
    attempts = wait < 0 ? 1000 : (base > 0 ? wait / base : wait);
  }
  cc.rm_failover_attempts_set = c.Get("yarn.client.failover-max-attempts").has_value();
  cc.rm_retry_interval = std::chrono::milliseconds(std::max<int64_t>(interval, 0));
  cc.rm_failover.max_failovers = static_cast<int>(std::min<int64_t>(attempts, 1000000));
  cc.rm_failover.sleep_base = std::chrono::milliseconds(base);
  cc.rm_failover.sleep_max = std::chrono::milliseconds(max);
  cc.rm_failover.connect_retries = static_cast<int>(std::clamp<int64_t>(retries, 0, 100));
  return Status::Ok();
}

Status LoadResourceManagers(ClusterConf& cc) {
  const Configuration& c = cc.raw;
  const std::string yarn_site = JoinPath(cc.conf_dir, "yarn-site.xml");
  TONY_RETURN_IF_ERROR(LoadRmAddresses(cc, yarn_site));
  // The web proxy (YarnConfiguration.PROXY_ADDRESS; YarnConfiguration.useHttps).
  cc.web_https = ToLower(Trim(c.GetOr("yarn.http.policy", "HTTP_ONLY"))) == "https_only";
  if (auto proxy = c.Get("yarn.web-proxy.address"); proxy && !Trim(*proxy).empty()) {
    cc.web_proxy_address = std::string(Trim(*proxy));
    TONY_RETURN_IF_ERROR(
        CheckAddress(c, "yarn.web-proxy.address", cc.web_proxy_address, yarn_site));
  }
  return LoadRmFailover(cc, yarn_site);
}

// fs.defaultFS names one NameNode, hdfs://<host>[:port].
Status LoadSingleNameNode(ClusterConf& cc, const Authority& parsed, const std::string& core_site,
                          const std::string& hdfs_site) {
  const Configuration& c = cc.raw;
  NameNodeAddresses nn;
  HostPort rpc{parsed.host, parsed.port.value_or(kNameNodeRpcPort)};
  nn.rpc_address = rpc.ToString();
  TONY_RETURN_IF_ERROR(CheckAddress(c, "fs.defaultFS", nn.rpc_address, core_site));
  cc.fs_host = rpc.host;
  cc.fs_port = rpc.port;
  // The address WebHDFS uses must be valid; the other one is kept only when it is (an
  // HTTPS_ONLY NameNode's http-address may say port 0: nothing listens there).
  for (auto [key, fallback, out, needed] :
       {std::tuple{"dfs.namenode.http-address", kNameNodeHttpDefault, &nn.http_address,
                   !cc.webhdfs_https},
        std::tuple{"dfs.namenode.https-address", kNameNodeHttpsDefault, &nn.https_address,
                   cc.webhdfs_https}}) {
    *out = c.GetOr(key, fallback);
    if (Status s = CheckAddress(c, key, *out, hdfs_site); !s.ok()) {
      if (needed) return s;
      out->clear();
      continue;
    }
    WithRpcHost(rpc, *out);
  }
  cc.namenodes.push_back(std::move(nn));
  return Status::Ok();
}

// fs.defaultFS names a nameservice, hdfs://<ns>: its NameNodes are dfs.ha.namenodes.<ns>'s.
Status LoadNameServiceNameNodes(ClusterConf& cc, const std::string& authority,
                                const std::string& hdfs_site) {
  const Configuration& c = cc.raw;
  cc.nameservice = authority;
  cc.fs_host = authority;
  cc.fs_port = -1;  // java.net.URI's "no port": hdfs://<ns>/path (§5 LocalResource URL)
  const std::string ids_key = "dfs.ha.namenodes." + authority;
  auto ids = cc.NameNodeIds(authority);
  if (ids.empty()) {
    // A nameservice of one NameNode (federation without HA): the keys end in .<ns>.
    ids.push_back("");
  }
  for (const auto& id : ids) {
    NameNodeAddresses nn;
    nn.id = id;
    std::string suffix = "." + authority + (id.empty() ? "" : "." + id);
    std::string rpc_key = "dfs.namenode.rpc-address" + suffix;
    nn.rpc_address = std::string(Trim(c.GetOr(rpc_key, "")));
    // The address WebHDFS uses must be set; the other one is kept when it is.
    for (auto [key, out, needed] :
         {std::tuple{"dfs.namenode.http-address" + suffix, &nn.http_address, !cc.webhdfs_https},
          std::tuple{"dfs.namenode.https-address" + suffix, &nn.https_address, cc.webhdfs_https}}) {
      auto value = c.Get(key);
      if (!value || Trim(*value).empty()) {
        if (!needed) continue;
        return InvalidArgument(key + " is not set in " + hdfs_site + " (fs.defaultFS is " +
                               cc.default_fs +
                               (id.empty() ? "" : " and " + ids_key + " lists " + id) +
                               "); tony reaches HDFS over WebHDFS at that address");
      }
      *out = std::string(Trim(*value));
      if (Status s = CheckAddress(c, key, *out, hdfs_site); !s.ok()) {
        if (needed) return s;
        out->clear();
        continue;
      }
      if (auto rpc = ParseHostPort(nn.rpc_address, rpc_key); rpc.ok()) WithRpcHost(*rpc, *out);
    }
    cc.namenodes.push_back(std::move(nn));
  }
  return Status::Ok();
}

Status LoadNameNodes(ClusterConf& cc) {
  const Configuration& c = cc.raw;
  const std::string core_site = JoinPath(cc.conf_dir, "core-site.xml");
  const std::string hdfs_site = JoinPath(cc.conf_dir, "hdfs-site.xml");
  cc.default_fs = c.GetOr("fs.defaultFS", "file:///");
  if (!StartsWith(cc.default_fs, "hdfs://")) return Status::Ok();  // the caller decides
  std::string authority = cc.default_fs.substr(7, cc.default_fs.find('/', 7) - 7);
  if (authority.empty()) {
    return InvalidArgument("fs.defaultFS is " + cc.default_fs + " in " +
                           SourceOf(c, "fs.defaultFS", core_site) +
                           ": expected hdfs://<host>[:port] or hdfs://<nameservice>");
  }
  TONY_ASSIGN_OR_RETURN(
      Authority parsed,
      ParseAuthority(authority, "fs.defaultFS in " + SourceOf(c, "fs.defaultFS", core_site)));
  auto nameservices = SplitTrimmed(c.GetOr("dfs.nameservices", ""), ',');
  bool is_nameservice = !parsed.port && (std::find(nameservices.begin(), nameservices.end(),
                                                   authority) != nameservices.end() ||
                                         c.Get("dfs.ha.namenodes." + authority).has_value());
  if (!is_nameservice) return LoadSingleNameNode(cc, parsed, core_site, hdfs_site);
  return LoadNameServiceNameNodes(cc, authority, hdfs_site);
}

}  // namespace

std::vector<std::string> ClusterConf::RmAddresses() const {
  std::vector<std::string> out;
  for (const auto& rm : resource_managers) out.push_back(rm.address);
  return out;
}

std::vector<std::string> ClusterConf::WebProxyAddresses() const {
  if (!web_proxy_address.empty()) return {web_proxy_address};
  std::vector<std::string> out;
  for (const auto& rm : resource_managers) {
    const std::string& address = web_https ? rm.webapp_https_address : rm.webapp_address;
    if (!address.empty()) out.push_back(address);
  }
  return out;
}

std::vector<std::string> ClusterConf::SchedulerAddresses() const {
  std::vector<std::string> out;
  for (const auto& rm : resource_managers) out.push_back(rm.scheduler_address);
  return out;
}

std::vector<std::string> ClusterConf::NameNodeHttpAddresses() const {
  std::vector<std::string> out;
  for (const auto& nn : namenodes) out.push_back(nn.http_address);
  return out;
}

std::vector<std::string> ClusterConf::NameNodeWebAddresses() const {
  std::vector<std::string> out;
  for (const auto& nn : namenodes)
    out.push_back(webhdfs_https ? nn.https_address : nn.http_address);
  return out;
}

std::vector<std::string> ClusterConf::NameNodeIds(const std::string& ns) const {
  return SplitTrimmed(raw.GetOr("dfs.ha.namenodes." + ns, ""), ',');
}

Result<HostPort> ClusterConf::NameNodeRpcAddress(const std::string& ns,
                                                 const std::string& id) const {
  const std::string key = "dfs.namenode.rpc-address." + ns + "." + id;
  return ParseHostPort(raw.GetOr(key, ""),
                       key + " in " + SourceOf(raw, key, JoinPath(conf_dir, "hdfs-site.xml")));
}

SchedulerConf ReadSchedulerConf(const ClusterConf& cluster) {
  SchedulerConf s;
  Configuration scheduler = cluster.raw;
  const std::string file = JoinPath(cluster.conf_dir, "capacity-scheduler.xml");
  if (!cluster.conf_dir.empty() && PathExists(file)) {
    s.capacity_scheduler_error = scheduler.AddFile(file);  // adds nothing when it fails
  }
  std::string calculator = scheduler.GetOr("yarn.scheduler.capacity.resource-calculator", "");
  std::string kind = scheduler.GetOr("yarn.resourcemanager.scheduler.class", "");
  s.counts_vcores = calculator.find("DominantResourceCalculator") != std::string::npos ||
                    kind.find("FairScheduler") != std::string::npos;
  s.min_allocation_mb =
      ParseInt64(cluster.raw.GetOr("yarn.scheduler.minimum-allocation-mb", "")).value_or(0);
  return s;
}

std::string HadoopConfDir() {
  for (const char* var : {"HADOOP_CONF_DIR", "YARN_CONF_DIR"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') return v;
  }
  return "";
}

Result<ClusterConf> LoadClusterConf(const std::string& conf_dir, const SiteFiles& files) {
  Configuration raw;
  bool any = false;
  for (const char* file : {"core-site.xml", "hdfs-site.xml", "yarn-site.xml"}) {
    const std::string named = std::string_view(file) == "yarn-site.xml"   ? files.yarn_site
                              : std::string_view(file) == "hdfs-site.xml" ? files.hdfs_site
                                                                          : std::string();
    std::string path = named.empty() ? JoinPath(conf_dir, file) : named;
    if (!named.empty() && !PathExists(path)) return NotFound(path + ": no such file");
    if (!PathExists(path)) continue;
    TONY_RETURN_IF_ERROR(raw.AddFile(path));
    any = true;
  }
  if (!any) {
    return NotFound("no core-site.xml, hdfs-site.xml or yarn-site.xml in " + conf_dir);
  }
  return ParseClusterConf(std::move(raw), conf_dir);
}

// hadoop.security.authentication, hadoop.rpc.protection and the RM's principal (Kerberos).
Status LoadSecurity(ClusterConf& c) {
  const std::string auth = c.raw.GetOr("hadoop.security.authentication", "simple");
  if (auth != "simple" && auth != "kerberos") {
    return InvalidArgument("hadoop.security.authentication = '" + auth + "' in " + c.conf_dir +
                           ": expected simple or kerberos");
  }
  c.kerberos = auth == "kerberos";
  auto protection = ipc::ParseRpcProtection(c.raw.GetOr("hadoop.rpc.protection", "authentication"));
  if (!protection.ok()) return protection.status().WithContext(c.conf_dir);
  c.rpc_protection = *protection;
  c.rm_principal = c.raw.GetOr("yarn.resourcemanager.principal", "");
  c.namenode_principal = c.raw.GetOr("dfs.namenode.kerberos.principal", "");
  if (c.kerberos && c.rm_principal.empty()) {
    return InvalidArgument("hadoop.security.authentication is kerberos in " + c.conf_dir +
                           " but yarn.resourcemanager.principal is not set");
  }
  return Status::Ok();
}

// dfs.http.policy / yarn.http.policy (HttpConfig.Policy, case-insensitive): true for HTTPS_ONLY.
Result<bool> HttpsOnly(const ClusterConf& cc, const std::string& key, const std::string& file) {
  auto v = cc.raw.Get(key);
  if (!v) return false;
  std::string policy = ToLower(Trim(*v));
  if (policy == "https_only") return true;
  if (policy == "http_only" || policy == "http_and_https") return false;
  return InvalidArgument(key + " is \"" + *v + "\" in " +
                         SourceOf(cc.raw, key, JoinPath(cc.conf_dir, file)) +
                         "; expected HTTP_ONLY, HTTPS_ONLY or HTTP_AND_HTTPS");
}

// The trust store of ssl-client.xml (or the file hadoop.ssl.client.conf names), when there is
// one beside the site files: Hadoop finds it on the classpath, where HADOOP_CONF_DIR is.
Status LoadSslClient(ClusterConf& cc) {
  std::string name = cc.raw.GetOr("hadoop.ssl.client.conf", "ssl-client.xml");
  std::string path = StartsWith(name, "/") ? name : JoinPath(cc.conf_dir, name);
  if (!PathExists(path)) return Status::Ok();
  Configuration ssl;
  TONY_RETURN_IF_ERROR(ssl.AddFile(path));
  cc.ssl_client.conf_file = path;
  cc.ssl_client.location = std::string(Trim(ssl.GetOr("ssl.client.truststore.location", "")));
  cc.ssl_client.type = ssl.GetOr("ssl.client.truststore.type", "jks");
  cc.ssl_client.password = ssl.GetOr("ssl.client.truststore.password", "");
  return Status::Ok();
}

Result<ClusterConf> ParseClusterConf(Configuration raw, const std::string& conf_dir) {
  ClusterConf c;
  c.conf_dir = conf_dir;
  c.raw = std::move(raw);
  TONY_ASSIGN_OR_RETURN(c.webhdfs_https, HttpsOnly(c, "dfs.http.policy", "hdfs-site.xml"));
  TONY_ASSIGN_OR_RETURN(c.yarn_https, HttpsOnly(c, "yarn.http.policy", "yarn-site.xml"));
  TONY_RETURN_IF_ERROR(LoadSslClient(c));
  TONY_RETURN_IF_ERROR(LoadResourceManagers(c));
  TONY_RETURN_IF_ERROR(LoadNameNodes(c));
  TONY_RETURN_IF_ERROR(LoadSecurity(c));
  return c;
}

Result<std::vector<ipc::ServerAddress>> ToServers(const std::vector<std::string>& addresses,
                                                  const std::vector<std::string>& ids,
                                                  const std::string& key) {
  std::vector<ipc::ServerAddress> out;
  for (size_t i = 0; i < addresses.size(); ++i) {
    TONY_ASSIGN_OR_RETURN(HostPort hp, ParseHostPort(addresses[i], key));
    std::string name = i < ids.size() && !ids[i].empty() ? ids[i] : addresses[i];
    out.push_back({name, hp.host, hp.port});
  }
  if (out.empty()) return InvalidArgument(key + ": no address");
  return out;
}

std::string ServerPrincipal(const std::string& principal, const std::string& host) {
  return ipc::ReplaceHostPattern(principal, host);
}

std::string FormatFailoverPolicy(const ipc::FailoverPolicy& p) {
  return std::to_string(p.max_failovers) + "," + std::to_string(p.sleep_base.count()) + "," +
         std::to_string(p.sleep_max.count()) + "," + std::to_string(p.connect_retries);
}

ipc::FailoverPolicy ParseFailoverPolicy(const std::string& value) {
  auto parts = SplitTrimmed(value, ',');
  ipc::FailoverPolicy p;
  if (parts.size() != 4) return p;
  auto a = ParseInt64(parts[0]);
  auto b = ParseInt64(parts[1]);
  auto m = ParseInt64(parts[2]);
  auto r = ParseInt64(parts[3]);
  if (!a || !b || !m || !r || *a < 0 || *b < 0 || *m < 0 || *r < 0) return ipc::FailoverPolicy();
  p.max_failovers = static_cast<int>(*a);
  p.sleep_base = std::chrono::milliseconds(*b);
  p.sleep_max = std::chrono::milliseconds(*m);
  p.connect_retries = static_cast<int>(*r);
  return p;
}

}  // namespace tony::hadoop
