// WebHDFS client over libcurl (docs/hadoop-ipc.md §6): what tony needs to stage a job.
//
// Base URL http://<dfs.namenode.http-address>/webhdfs/v1<path>?op=...&user.name=<user>, or
// https://<dfs.namenode.https-address>/... ("swebhdfs", WebHdfsOptions::https) with the trust of
// hadoop/hdfs/tls.h; on an
// insecure cluster the user is whatever user.name says. On a Kerberized cluster the NameNode
// takes SPNEGO (libcurl's Negotiate with the ticket cache's Kerberos ticket, UseSpnego) or a
// delegation token (delegation=<urlString>, UseDelegationToken) instead (docs/hadoop-ipc.md,
// WebHDFS). CREATE and OPEN are two steps: the
// NameNode redirects (307) to a DataNode, which takes or serves the bytes.
// Thread-safety: each call uses its own curl handle; an instance may be shared once its
// authentication is set.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "hadoop/hdfs/tls.h"

namespace tony::hadoop::hdfs {

struct FileStatus {
  int64_t length = 0;
  int64_t modification_time = 0;  // ms since the epoch: LocalResource.timestamp (§5)
  std::string type;               // FILE, DIRECTORY or SYMLINK
  std::string permission;         // octal, e.g. "644"
  std::string owner;
};

// The NameNode's JSON replies (§6), decoded apart from the HTTP exchange. `what` names the
// request in errors ("WebHDFS GETFILESTATUS /user/me/x").
// The FileStatus of a 200 GETFILESTATUS reply: {"FileStatus": {"length", "modificationTime",
// "type", "permission", "owner", ...}}.
Result<FileStatus> ParseFileStatusReply(const std::string& body, const std::string& what);
// The "boolean" of a 200 MKDIRS or DELETE reply: {"boolean": true}.
Result<bool> ParseBooleanReply(const std::string& body, const std::string& what);
// The "long" of a 200 RENEWDELEGATIONTOKEN reply, the token's new expiry: {"long": 1700000000000}.
Result<int64_t> ParseLongReply(const std::string& body, const std::string& what);
// The Status of an unexpected reply: kNotFound for 404 or a FileNotFoundException,
// kPermissionDenied for 401/403, else kInternal; the message has the RemoteException's class and
// message when the body is {"RemoteException": {"exception", "javaClassName", "message"}}.
Status ErrorFromReply(long http_code, const std::string& body, const std::string& what);

// The "urlString" of a 200 GETDELEGATIONTOKEN reply: {"Token": {"urlString": "..."}}. Errors
// never quote the body: it holds a secret.
Result<std::string> ParseDelegationTokenReply(const std::string& body, const std::string& what);

// Limits on a reply body read into memory; past one, the request fails with kResourceExhausted
// naming the URL and the limit. Every request speaks only http or https, and a 307's Location is
// followed only as CheckDataNodeRedirect allows.
inline constexpr size_t kMaxJsonReplyBytes = 4 << 20;  // a NameNode's JSON reply or error page
inline constexpr size_t kMaxOpenBytes = 64 << 20;      // OPEN's bytes from the DataNode
inline constexpr size_t kMaxHttpGetBytes = 256 << 20;  // HttpGet: a container's whole log

// An HTTP or HTTPS GET (e.g. a NodeManager's container log web service): the body on 200, else
// an error with the status code and the start of the body. https URLs are verified with `trust`.
Result<std::string> HttpGet(const std::string& url, size_t max_bytes = kMaxHttpGetBytes,
                            const TlsTrust& trust = {});
struct HttpGetOptions {
  size_t max_bytes = kMaxHttpGetBytes;
  // Answer a 401 with SPNEGO (libcurl's GSS-API Negotiate, the Kerberos ticket's user), as a
  // Kerberized cluster's web UIs and the RM's web proxy ask.
  bool negotiate = false;
  std::vector<std::string> headers;  // extra request headers, "Name: value"
  TlsTrust trust;                    // the CAs for an https URL (the system's when empty)
};
Result<std::string> HttpGet(const std::string& url, const HttpGetOptions& options);

// Whether the DataNode URL of a NameNode's 307 (`location`) may be followed: only http or https
// (a file:// one would make CREATE write, or OPEN read, a local file); only https when the
// NameNode was reached over https (the URL carries the delegation token: no downgrade to clear
// text); and only to one of `datanode_hosts` (case-insensitive) when that list is not empty.
// kPermissionDenied naming the NameNode (`namenode`, host:port) and the URL, token redacted.
Status CheckDataNodeRedirect(const std::string& location, bool https,
                             const std::vector<std::string>& datanode_hosts,
                             const std::string& namenode);

// How a WebHdfs reaches its NameNodes and which DataNodes it follows them to.
struct WebHdfsOptions {
  bool https = false;  // swebhdfs: the addresses are the NameNodes' https-address
  TlsTrust trust;      // the CAs for https (the system's when empty)
  // tony.application.webhdfs.datanode-hosts: the hosts a redirect may name; empty: any host.
  std::vector<std::string> datanode_hosts;
};

// Whether a NameNode's reply says it is the standby of an HA pair: 403 with a StandbyException
// RemoteException ("Operation category WRITE is not supported in state standby").
bool IsStandbyReply(long http_code, const std::string& body);

class WebHdfs {
 public:
  // `http_addresses`: "host:port" of the NameNode's HTTP server (dfs.namenode.http-address), or
  // of each NameNode of an HA nameservice, comma-separated, in dfs.ha.namenodes order. A request
  // goes to the NameNode that answered last; one that cannot be reached or says it is the
  // standby is skipped for the next (each at most once per request). With options.https they are
  // the NameNodes' HTTPS addresses (dfs.namenode.https-address).
  WebHdfs(const std::string& http_addresses, std::string user, WebHdfsOptions options = {});

  Status Mkdirs(const std::string& path, const std::string& permission = "755");
  // Two-step CREATE (§6); overwrites. The bytes come from memory or from a local file.
  Status Create(const std::string& path, const std::string& data,
                const std::string& permission = "644");
  Status CreateFromFile(const std::string& path, const std::string& local_path,
                        const std::string& permission = "644");
  // Two-step APPEND: the bytes go to the end of an existing file.
  Status Append(const std::string& path, const std::string& data);
  // RENAME of a file or directory; an error when the NameNode refuses (`to` exists, its parent
  // does not).
  Status Rename(const std::string& from, const std::string& to);
  Result<FileStatus> GetFileStatus(const std::string& path);
  // The whole file, at most kMaxOpenBytes.
  Result<std::string> Open(const std::string& path);
  // True when something was deleted; false when the path did not exist.
  Result<bool> Delete(const std::string& path, bool recursive = true);
  // RENAME with renameoptions=OVERWRITE (§6): `to` replaced by `from` in one step, so a reader
  // of `to` sees the old or the new file, never a part of one. Fails when `from` is missing.
  Status RenameOver(const std::string& from, const std::string& to);

  // Authenticate with SPNEGO from now on (the Kerberos ticket in $KRB5CCNAME or the default
  // cache), sending no user.name; or with a delegation token's urlString.
  void UseSpnego() { spnego_ = true; }
  // With SPNEGO: act as `user` (doas=), which the NameNode allows only when its
  // hadoop.proxyuser.<our short name>.* settings do; a delegation token already names its owner.
  void ActAs(std::string user) { proxy_user_ = std::move(user); }
  void UseDelegationToken(std::string url_string) { delegation_ = std::move(url_string); }

  // GETDELEGATIONTOKEN: a new HDFS delegation token (its urlString) that `renewer` (the short
  // name of the ResourceManager's principal, Hadoop's Master.getMasterPrincipal) may renew.
  Result<std::string> GetDelegationToken(const std::string& renewer);
  // RENEWDELEGATIONTOKEN of a token (its urlString) whose renewer is this login: the new expiry,
  // ms since the epoch ({"long": ...}).
  Result<int64_t> RenewDelegationToken(const std::string& url_string);

  const std::string& user() const { return user_; }

 private:
  std::string Url(const std::string& namenode, const std::string& path,
                  const std::string& op_and_params) const;
  Status CreateImpl(const std::string& path, const std::string* data, const std::string* local_path,
                    const std::string& permission);
  std::vector<std::string> namenodes_;
  std::string user_;
  WebHdfsOptions options_;
  bool spnego_ = false;
  std::string proxy_user_;
  std::string delegation_;
  std::atomic<size_t> active_{0};  // index into namenodes_
};

}  // namespace tony::hadoop::hdfs
