#include "hadoop/hdfs/webhdfs.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string_view>

#include "common/log.h"
#include "common/strings.h"
#include "config/key_names.h"

namespace tony::hadoop::hdfs {
namespace {

using Json = nlohmann::json;

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Reply {
  long code = 0;
  std::string body;
  std::string location;  // the redirect target, if any
  std::string namenode;  // host:port of the NameNode that answered (NameNodeExchange)
};

// A reply body read into memory, at most `limit` bytes: a NameNode or DataNode that sends more
// ends the exchange (CURLE_WRITE_ERROR) rather than growing the client without bound.
struct Sink {
  std::string* out = nullptr;
  size_t limit = 0;
  bool over = false;
};

size_t AppendBody(char* data, size_t size, size_t n, void* arg) {
  auto* sink = static_cast<Sink*>(arg);
  if (size * n > sink->limit - sink->out->size()) {
    sink->over = true;
    return 0;
  }
  sink->out->append(data, size * n);
  return size * n;
}

// The schemes a request or a redirect may use: a Location of file:///home/me/.bashrc from a
// rogue NameNode must not make CREATE write, or OPEN read, a local file.
bool IsHttpUrl(const std::string& url) {
  auto starts = [&](std::string_view scheme) {
    return url.size() > scheme.size() &&
           std::equal(scheme.begin(), scheme.end(), url.begin(), [](char a, char b) {
             return a == std::tolower(static_cast<unsigned char>(b));
           });
  };
  return starts("http://") || starts("https://");
}

struct Body {
  const std::string* data = nullptr;
  size_t offset = 0;
  FILE* file = nullptr;
};

size_t ReadBody(char* buf, size_t size, size_t n, void* in) {
  auto* body = static_cast<Body*>(in);
  if (body->file != nullptr) return std::fread(buf, 1, size * n, body->file);
  if (body->data == nullptr) return 0;
  size_t len = std::min(size * n, body->data->size() - body->offset);
  std::copy_n(body->data->data() + body->offset, len, buf);
  body->offset += len;
  return len;
}

// A URL for messages: the value of every delegation= parameter is a secret (a redirect's URL is
// the NameNode's to write, and may carry it twice).
std::string RedactUrl(const std::string& url) {
  constexpr std::string_view kParam = "delegation=";
  std::string out;
  size_t from = 0;
  for (size_t at = url.find(kParam); at != std::string::npos; at = url.find(kParam, from)) {
    out += url.substr(from, at - from);
    out += "delegation=<redacted>";
    from = url.find('&', at);
    if (from == std::string::npos) return out;
  }
  return out + url.substr(from);
}

bool IsHttpsUrl(const std::string& url) {
  return url.size() > 8 && ToLower(std::string_view(url).substr(0, 8)) == "https://";
}

// https: the peer's certificate chain and host name are always verified; with CAs in `trust`,
// only they are trusted (no system bundle or directory beside them), as a Hadoop client trusts
// only its trust store.
void ApplyTrust(CURL* c, const TlsTrust& trust) {
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  if (trust.ca_pem.empty()) return;
  curl_blob blob{const_cast<char*>(trust.ca_pem.data()), trust.ca_pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
  curl_easy_setopt(c, CURLOPT_CAPATH, nullptr);
}

// The server's certificate was checked and refused (not a handshake that failed otherwise).
bool IsCertificateRefused(CURLcode rc) {
  return rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE ||
         rc == CURLE_SSL_ISSUER_ERROR;
}

// The URL and how it is reached: timeouts, http and https only, redirects returned.
void SetTransport(CURL* c, const std::string& url) {
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 20L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 600L);
#if LIBCURL_VERSION_NUM >= 0x075500  // 7.85: the _STR forms; the bitmasks are deprecated there
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(c, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
}

// One HTTP exchange; redirects are returned, not followed (CREATE must send its bytes only to
// the DataNode, §6). Only http and https are spoken; the reply body is refused past `max_body`.
// `negotiate`: answer the NameNode's 401 with SPNEGO (libcurl's GSS-API Negotiate).
Result<Reply> Exchange(const std::string& method, const std::string& url, Body* body,
                       int64_t body_size, bool negotiate = false,
                       size_t max_body = kMaxJsonReplyBytes, const TlsTrust& trust = {},
                       const std::vector<std::string>& extra_headers = {}) {
  if (!IsHttpUrl(url)) {
    return InvalidArgument("WebHDFS " + method + " " + RedactUrl(url) +
                           ": only http:// and https:// URLs are allowed");
  }
  GlobalInit();
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Internal("curl_easy_init failed");
  Reply reply;
  CURL* c = curl.get();
  SetTransport(c, url);
  ApplyTrust(c, trust);
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  Sink sink{&reply.body, max_body};
  curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(max_body));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  if (negotiate) {
    curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_NEGOTIATE);
    curl_easy_setopt(c, CURLOPT_USERPWD, ":");  // the user comes from the Kerberos ticket
  }
  curl_slist* headers = curl_slist_append(nullptr, "Expect:");
  for (const auto& h : extra_headers) headers = curl_slist_append(headers, h.c_str());
  if (method == "PUT" || (method == "POST" && body != nullptr)) {
    headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    // An upload is a PUT to libcurl; APPEND's DataNode step is a POST with the bytes.
    if (method == "POST") curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "POST");
    curl_easy_setopt(c, CURLOPT_READFUNCTION, ReadBody);
    static Body empty;
    curl_easy_setopt(c, CURLOPT_READDATA, body != nullptr ? body : &empty);
    curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(body_size));
  } else if (method != "GET") {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(headers);
  if (sink.over || rc == CURLE_FILESIZE_EXCEEDED) {
    return ResourceExhausted("WebHDFS " + method + " " + RedactUrl(url) +
                             ": the reply is larger than the limit of " + std::to_string(max_body) +
                             " bytes");
  }
  std::string detail = error[0] != '\0' ? std::string(error) : curl_easy_strerror(rc);
  if (rc != CURLE_OK && IsHttpsUrl(url) && IsCertificateRefused(rc)) {
    return Unauthenticated(
        "WebHDFS " + method + " " + RedactUrl(url) +
        ": the server's TLS certificate was not accepted (" + detail +
        "); trusted: " + (trust.source.empty() ? "the system's CA certificates" : trust.source));
  }
  if (rc != CURLE_OK)
    return Unavailable("WebHDFS " + method + " " + RedactUrl(url) + ": " + detail);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.code);
  char* location = nullptr;
  if (curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location != nullptr) {
    reply.location = location;
  }
  return reply;
}

// A field of a JSON object, when it is there with the expected type.
const Json* Field(const Json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string StringField(const Json& object, const char* key, std::string fallback = "") {
  const Json* f = Field(object, key);
  return f != nullptr && f->is_string() ? f->get<std::string>() : std::move(fallback);
}

// The start of a reply body for an error message: an HTML error page can be long.
std::string Excerpt(const std::string& body) {
  constexpr size_t kMaxExcerpt = 300;
  return body.size() <= kMaxExcerpt ? body : body.substr(0, kMaxExcerpt) + "...";
}

Result<Json> ParseJson(const std::string& body, const std::string& what) {
  auto j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Internal(what + ": not a JSON object: " + Excerpt(body));
  }
  return j;
}

std::string Escape(const std::string& path) {
  std::string out;
  for (const auto& part : SplitTrimmed(path, '/')) {
    if (part.empty()) continue;
    char* e = curl_escape(part.c_str(), static_cast<int>(part.size()));
    out += "/";
    out += e;
    curl_free(e);
  }
  return out.empty() ? "/" : out;
}

// One query parameter's value, percent-encoded whole.
std::string EscapeValue(const std::string& value) {
  char* e = curl_escape(value.c_str(), static_cast<int>(value.size()));
  std::string out = e;
  curl_free(e);
  return out;
}

// A request's first step, to the NameNode that answered last, else the next ones in order: one
// that cannot be reached or answers as the standby is skipped (each tried once).
Result<Reply> NameNodeExchange(const std::vector<std::string>& namenodes,
                               std::atomic<size_t>& active, const std::string& method,
                               const std::function<std::string(const std::string&)>& url,
                               bool negotiate, const TlsTrust& trust) {
  if (namenodes.empty()) return FailedPrecondition("WebHDFS: no NameNode HTTP address");
  size_t first = active.load() % namenodes.size();
  Status last;
  for (size_t i = 0; i < namenodes.size(); ++i) {
    size_t index = (first + i) % namenodes.size();
    auto r =
        Exchange(method, url(namenodes[index]), nullptr, 0, negotiate, kMaxJsonReplyBytes, trust);
    if (r.ok() && !IsStandbyReply(r->code, r->body)) {
      if (index != first) {
        TONY_LOG(kInfo) << "WebHDFS: the active NameNode is " << namenodes[index];
        active = index;
      }
      r->namenode = namenodes[index];
      return r;
    }
    last = r.ok() ? Unavailable("NameNode " + namenodes[index] + " is the standby")
                  : r.status().WithContext("the NameNode " + namenodes[index]);
    if (namenodes.size() > 1) {
      TONY_LOG(kWarning) << "WebHDFS: skipping NameNode " << namenodes[index] << ": "
                         << last.message()
                         << (i + 1 < namenodes.size()
                                 ? "; failing over to " + namenodes[(index + 1) % namenodes.size()]
                                 : "");
    }
  }
  if (namenodes.size() == 1) return last;
  return last.WithContext("no active NameNode among " + Join(namenodes, ", "));
}

}  // namespace

Status CheckDataNodeRedirect(const std::string& location, bool https,
                             const std::vector<std::string>& datanode_hosts,
                             const std::string& namenode) {
  auto refuse = [&](const std::string& why) {
    return PermissionDenied("the NameNode " + namenode + " redirected to " + RedactUrl(location) +
                            "; " + why);
  };
  if (!IsHttpUrl(location)) return refuse("only http:// and https:// are followed");
  if (https && !IsHttpsUrl(location)) {
    return refuse(
        "the NameNode is reached over https, so its DataNodes must be too (the URL "
        "carries the delegation token)");
  }
  if (datanode_hosts.empty()) return Status::Ok();
  std::unique_ptr<CURLU, void (*)(CURLU*)> u(curl_url(), curl_url_cleanup);
  char* host = nullptr;
  if (!u || curl_url_set(u.get(), CURLUPART_URL, location.c_str(), 0) != CURLUE_OK ||
      curl_url_get(u.get(), CURLUPART_HOST, &host, 0) != CURLUE_OK || host == nullptr) {
    return refuse("not a URL with a host");
  }
  std::string h = ToLower(host);
  curl_free(host);
  for (const auto& allowed : datanode_hosts) {
    if (ToLower(Trim(allowed)) == h) return Status::Ok();
  }
  // The host is quoted redacted too: a Location such as http://delegation=<token> has the token
  // text in its "host".
  return refuse("host " + RedactUrl(h) + " is not in " + keys::kApplicationWebhdfsDatanodeHosts +
                " (" + Join(datanode_hosts, ",") + ")");
}

bool IsStandbyReply(long http_code, const std::string& body) {
  return http_code == 403 && body.find("StandbyException") != std::string::npos;
}

Status ErrorFromReply(long http_code, const std::string& body, const std::string& what) {
  // §6: errors are {"RemoteException": {"exception", "javaClassName", "message"}}.
  std::string detail = Excerpt(body);
  std::string exception;
  auto j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (const Json* e = j.is_object() ? Field(j, "RemoteException") : nullptr;
      e != nullptr && e->is_object()) {
    exception = StringField(*e, "exception");
    detail = StringField(*e, "javaClassName", exception) + ": " + StringField(*e, "message");
  }
  std::string m = what + ": HTTP " + std::to_string(http_code) + " " + detail;
  if (http_code == 404 || exception == "FileNotFoundException") return NotFound(m);
  if (http_code == 401 || http_code == 403) return PermissionDenied(m);
  return Internal(m);
}

Result<FileStatus> ParseFileStatusReply(const std::string& body, const std::string& what) {
  TONY_ASSIGN_OR_RETURN(Json j, ParseJson(body, what));
  const Json* f = Field(j, "FileStatus");
  if (f == nullptr || !f->is_object()) {
    return Internal(what + ": no FileStatus in " + Excerpt(body));
  }
  FileStatus s;
  for (auto [key, out] :
       {std::pair{"length", &s.length}, std::pair{"modificationTime", &s.modification_time}}) {
    const Json* v = Field(*f, key);
    if (v == nullptr) continue;
    if (!v->is_number_integer() ||
        (v->is_number_unsigned() &&
         v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))) {
      return Internal(what + ": FileStatus." + key + " is not an integer: " + v->dump());
    }
    *out = v->get<int64_t>();
  }
  s.type = StringField(*f, "type");
  s.permission = StringField(*f, "permission");
  s.owner = StringField(*f, "owner");
  return s;
}

Result<bool> ParseBooleanReply(const std::string& body, const std::string& what) {
  TONY_ASSIGN_OR_RETURN(Json j, ParseJson(body, what));
  const Json* b = Field(j, "boolean");
  if (b == nullptr || !b->is_boolean()) {
    return Internal(what + ": no \"boolean\" in " + Excerpt(body));
  }
  return b->get<bool>();
}

Result<int64_t> ParseLongReply(const std::string& body, const std::string& what) {
  TONY_ASSIGN_OR_RETURN(Json j, ParseJson(body, what));
  const Json* v = Field(j, "long");
  if (v == nullptr || !v->is_number_integer() ||
      (v->is_number_unsigned() &&
       v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))) {
    return Internal(what + ": no integer \"long\" in " + Excerpt(body));
  }
  return v->get<int64_t>();
}

Result<std::string> ParseDelegationTokenReply(const std::string& body, const std::string& what) {
  auto j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  const Json* token = j.is_object() ? Field(j, "Token") : nullptr;
  const Json* url = token != nullptr && token->is_object() ? Field(*token, "urlString") : nullptr;
  if (url == nullptr || !url->is_string() || url->get<std::string>().empty()) {
    return Internal(what + ": the reply has no Token.urlString (" + std::to_string(body.size()) +
                    " bytes)");
  }
  return url->get<std::string>();
}

Result<std::string> WebHdfs::GetDelegationToken(const std::string& renewer) {
  std::string what = "WebHDFS GETDELEGATIONTOKEN";
  TONY_ASSIGN_OR_RETURN(
      Reply r,
      NameNodeExchange(
          namenodes_, active_, "GET",
          [&](auto& nn) { return Url(nn, "/", "op=GETDELEGATIONTOKEN&renewer=" + renewer); },
          spnego_, options_.trust));
  if (r.code != 200) return ErrorFromReply(r.code, r.body, what);
  return ParseDelegationTokenReply(r.body, what);
}

Result<int64_t> WebHdfs::RenewDelegationToken(const std::string& url_string) {
  std::string what = "WebHDFS RENEWDELEGATIONTOKEN";
  TONY_ASSIGN_OR_RETURN(
      Reply r,
      NameNodeExchange(
          namenodes_, active_, "PUT",
          [&](auto& nn) { return Url(nn, "/", "op=RENEWDELEGATIONTOKEN&token=" + url_string); },
          spnego_, options_.trust));
  if (r.code != 200) return ErrorFromReply(r.code, r.body, what);
  return ParseLongReply(r.body, what);
}

Result<std::string> HttpGet(const std::string& url, size_t max_bytes, const TlsTrust& trust) {
  HttpGetOptions options;
  options.max_bytes = max_bytes;
  options.trust = trust;
  return HttpGet(url, options);
}

Result<std::string> HttpGet(const std::string& url, const HttpGetOptions& options) {
  TONY_ASSIGN_OR_RETURN(Reply r, Exchange("GET", url, nullptr, 0, options.negotiate,
                                          options.max_bytes, options.trust, options.headers));
  if (r.code != 200) {
    return Unavailable("GET " + url + ": HTTP " + std::to_string(r.code) + ": " +
                       r.body.substr(0, 300));
  }
  return std::move(r.body);
}

WebHdfs::WebHdfs(const std::string& http_addresses, std::string user, WebHdfsOptions options)
    : namenodes_(SplitTrimmed(http_addresses, ',')),
      user_(std::move(user)),
      options_(std::move(options)) {}

std::string WebHdfs::Url(const std::string& namenode, const std::string& path,
                         const std::string& op_and_params) const {
  std::string auth;
  if (!delegation_.empty()) {
    auth = "&delegation=" + delegation_;
  } else if (!spnego_) {
    auth = "&user.name=" + user_;
  } else if (!proxy_user_.empty()) {
    auth =
        "&doas=" + EscapeValue(proxy_user_);  // §6: SPNEGO as ourselves, acting as the proxy user
  }
  return (options_.https ? "https://" : "http://") + namenode + "/webhdfs/v1" + Escape(path) + "?" +
         op_and_params + auth;
}

Status WebHdfs::Mkdirs(const std::string& path, const std::string& permission) {
  std::string what = "WebHDFS MKDIRS " + path;
  TONY_ASSIGN_OR_RETURN(
      Reply r, NameNodeExchange(
                   namenodes_, active_, "PUT",
                   [&](auto& nn) { return Url(nn, path, "op=MKDIRS&permission=" + permission); },
                   spnego_, options_.trust));
  if (r.code != 200) return ErrorFromReply(r.code, r.body, what);
  TONY_ASSIGN_OR_RETURN(bool made, ParseBooleanReply(r.body, what));
  if (!made) return Internal(what + ": the NameNode answered false");
  return Status::Ok();
}

Status WebHdfs::Create(const std::string& path, const std::string& data,
                       const std::string& permission) {
  return CreateImpl(path, &data, nullptr, permission);
}

Status WebHdfs::CreateFromFile(const std::string& path, const std::string& local_path,
                               const std::string& permission) {
  return CreateImpl(path, nullptr, &local_path, permission);
}

Status WebHdfs::CreateImpl(const std::string& path, const std::string* data,
                           const std::string* local_path, const std::string& permission) {
  std::string what = "WebHDFS CREATE " + path;
  // Step 1: the NameNode names a DataNode (§6).
  TONY_ASSIGN_OR_RETURN(
      Reply r, NameNodeExchange(
                   namenodes_, active_, "PUT",
                   [&](auto& nn) {
                     return Url(nn, path, "op=CREATE&overwrite=true&permission=" + permission);
                   },
                   spnego_, options_.trust));
  if (r.code != 307 || r.location.empty()) return ErrorFromReply(r.code, r.body, what);
  // Step 2: the bytes go to the DataNode.
  Body body;
  int64_t size = 0;
  std::unique_ptr<FILE, int (*)(FILE*)> file(nullptr, std::fclose);
  if (local_path != nullptr) {
    file.reset(std::fopen(local_path->c_str(), "rb"));
    if (!file) return ErrnoStatus("cannot open " + *local_path, errno);
    std::fseek(file.get(), 0, SEEK_END);
    size = std::ftell(file.get());
    std::fseek(file.get(), 0, SEEK_SET);
    body.file = file.get();
  } else {
    body.data = data;
    size = static_cast<int64_t>(data->size());
  }
  TONY_RETURN_IF_ERROR(
      CheckDataNodeRedirect(r.location, options_.https, options_.datanode_hosts, r.namenode)
          .WithContext(what));
  TONY_ASSIGN_OR_RETURN(
      Reply w, Exchange("PUT", r.location, &body, size, false, kMaxJsonReplyBytes, options_.trust));
  if (w.code != 201) return ErrorFromReply(w.code, w.body, what + " (DataNode)");
  return Status::Ok();
}

Status WebHdfs::Append(const std::string& path, const std::string& data) {
  std::string what = "WebHDFS APPEND " + path;
  // Step 1: the NameNode names a DataNode (§6), as for CREATE.
  TONY_ASSIGN_OR_RETURN(
      Reply r, NameNodeExchange(
                   namenodes_, active_, "POST",
                   [&](auto& nn) { return Url(nn, path, "op=APPEND"); }, spnego_, options_.trust));
  if (r.code != 307 || r.location.empty()) return ErrorFromReply(r.code, r.body, what);
  TONY_RETURN_IF_ERROR(
      CheckDataNodeRedirect(r.location, options_.https, options_.datanode_hosts, r.namenode)
          .WithContext(what));
  // Step 2: the bytes go to the DataNode.
  Body body;
  body.data = &data;
  TONY_ASSIGN_OR_RETURN(
      Reply w, Exchange("POST", r.location, &body, static_cast<int64_t>(data.size()), false,
                        kMaxJsonReplyBytes, options_.trust));
  if (w.code != 200) return ErrorFromReply(w.code, w.body, what + " (DataNode)");
  return Status::Ok();
}

Status WebHdfs::Rename(const std::string& from, const std::string& to) {
  std::string what = "WebHDFS RENAME " + from + " to " + to;
  TONY_ASSIGN_OR_RETURN(
      Reply r, NameNodeExchange(
                   namenodes_, active_, "PUT",
                   [&](auto& nn) { return Url(nn, from, "op=RENAME&destination=" + Escape(to)); },
                   spnego_, options_.trust));
  if (r.code != 200) return ErrorFromReply(r.code, r.body, what);
  TONY_ASSIGN_OR_RETURN(bool renamed, ParseBooleanReply(r.body, what));
  if (!renamed) {
    return FailedPrecondition(what + ": the NameNode refused (the target exists, or its parent " +
                              "or the source does not)");
  }
  return Status::Ok();
}

Result<FileStatus> WebHdfs::GetFileStatus(const std::string& path) {
  std::string what = "WebHDFS GETFILESTATUS " + path;
  TONY_ASSIGN_OR_RETURN(Reply r, NameNodeExchange(
                                     namenodes_, active_, "GET",
                                     [&](auto& nn) { return Url(nn, path, "op=GETFILESTATUS"); },
                                     spnego_, options_.trust));
  if (r.code != 200) return ErrorFromReply(r.code, r.body, what);
  return ParseFileStatusReply(r.body, what);
}

Result<std::string> WebHdfs::Open(const std::string& path) {
  std::string what = "WebHDFS OPEN " + path;
  TONY_ASSIGN_OR_RETURN(
      Reply r, NameNodeExchange(
                   namenodes_, active_, "GET", [&](auto& nn) { return Url(nn, path, "op=OPEN"); },
                   spnego_, options_.trust));
  if (r.code == 307 && !r.location.empty()) {
    TONY_RETURN_IF_ERROR(
        CheckDataNodeRedirect(r.location, options_.https, options_.datanode_hosts, r.namenode)
            .WithContext(what));
    TONY_ASSIGN_OR_RETURN(
        r, Exchange("GET", r.location, nullptr, 0, false, kMaxOpenBytes, options_.trust));
  }
  if (r.code != 200) return ErrorFromReply(r.code, r.body, what);
  return r.body;
}

Result<bool> WebHdfs::Delete(const std::string& path, bool recursive) {
  std::string what = "WebHDFS DELETE " + path;
  TONY_ASSIGN_OR_RETURN(Reply r, NameNodeExchange(
                                     namenodes_, active_, "DELETE",
                                     [&](auto& nn) {
                                       return Url(nn, path,
                                                  std::string("op=DELETE&recursive=") +
                                                      (recursive ? "true" : "false"));
                                     },
                                     spnego_, options_.trust));
  if (r.code != 200) return ErrorFromReply(r.code, r.body, what);
  return ParseBooleanReply(r.body, what);
}

Status WebHdfs::RenameOver(const std::string& from, const std::string& to) {
  std::string what = "WebHDFS RENAME " + from + " to " + to;
  TONY_ASSIGN_OR_RETURN(Reply r, NameNodeExchange(
                                     namenodes_, active_, "PUT",
                                     [&](auto& nn) {
                                       return Url(nn, from,
                                                  "op=RENAME&destination=" + EscapeValue(to) +
                                                      "&renameoptions=OVERWRITE");
                                     },
                                     spnego_, options_.trust));
  if (r.code != 200) return ErrorFromReply(r.code, r.body, what);
  return Status::Ok();
}

}  // namespace tony::hadoop::hdfs
