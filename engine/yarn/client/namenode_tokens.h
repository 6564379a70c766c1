// HDFS delegation tokens beyond the staging file system's (engine/yarn/client/yarn_security.h), for
// data on other clusters: one for each URI of tony.other.namenodes, and one for
// tony.history.location when it is an hdfs:// path of another NameNode (TonY's TokenCache
// treatment, docs/tony-compat.md §7). Each is renewable by the ResourceManager and goes with the
// others into the AM's launch context, and from there to every task.
//
//  hdfs://host[:port]      ClientNamenodeProtocol.getDelegationToken over IPC with GSSAPI to
//                          dfs.namenode.kerberos.principal (docs/hadoop-ipc.md §6.2); service
//                          "ip:port", port 8020 when none is given
//  hdfs://<nameservice>    each NameNode of dfs.ha.namenodes.<ns> in hdfs-site.xml, the first that
//                          answers; service "ha-hdfs:<ns>"
//  webhdfs://host[:port]   WebHDFS GETDELEGATIONTOKEN with SPNEGO; kind "WEBHDFS delegation",
//                          service "ip:port", port 9870 when none is given
//  swebhdfs://host[:port]  the same over https (the trust of tony.application.ssl.ca-file,
//                          hadoop/hdfs/tls.h); kind "SWEBHDFS delegation", port 9871 by default
// A NameNode that cannot be asked is a warning that names it, not an error (TonY #510): the job may
// never touch it. On an open cluster nothing is fetched.
// Thread-safety: call from the submitting thread.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "config/configuration.h"
#include "engine/yarn/client/yarn_security.h"
#include "hadoop/hdfs/tls.h"
#include "hadoop/security/credentials.h"
#include "hadoop/yarn/cluster_conf.h"

namespace tony::client {

// One entry of tony.other.namenodes (or tony.history.location, named by `key` in errors).
struct NameNodeUri {
  std::string text;    // as the user wrote it, for warnings
  std::string scheme;  // hdfs, webhdfs or swebhdfs
  std::string host;    // a host, or an HA nameservice of hdfs-site.xml
  int port = -1;       // -1: none given
};
// "scheme://host[:port][/path]"; kInvalidArgument naming `key` for any other scheme or a bad
// port.
Result<NameNodeUri> ParseNameNodeUri(const std::string& text, const std::string& key);

// Adds the tokens to `creds` (a NameNode whose service already has one is skipped); returns one
// warning per NameNode that failed.
// `trust`: the CAs for swebhdfs:// URIs.
std::vector<std::string> AddOtherNameNodeTokens(const hadoop::ClusterConf& cluster,
                                                const ClientSecurity& security,
                                                const Configuration& job_conf,
                                                const hadoop::hdfs::TlsTrust& trust,
                                                hadoop::security::Credentials* creds);

}  // namespace tony::client
