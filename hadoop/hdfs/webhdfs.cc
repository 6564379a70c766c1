#include "hadoop/hdfs/webhdfs.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "common/strings.h"

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
};

size_t AppendBody(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
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
  std::memcpy(buf, body->data->data() + body->offset, len);
  body->offset += len;
  return len;
}

// One HTTP exchange; redirects are returned, not followed (CREATE must send its bytes only to
// the DataNode, §6).
Result<Reply> Exchange(const std::string& method, const std::string& url, Body* body,
                       int64_t body_size) {
  GlobalInit();
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Internal("curl_easy_init failed");
  Reply reply;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 20L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 600L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply.body);
  curl_slist* headers = curl_slist_append(nullptr, "Expect:");
  if (method == "PUT") {
    headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
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
  if (rc != CURLE_OK) {
    return Unavailable("WebHDFS " + method + " " + url + ": " + curl_easy_strerror(rc));
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.code);
  char* location = nullptr;
  if (curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location != nullptr) {
    reply.location = location;
  }
  return reply;
}

// §6: errors are {"RemoteException": {"exception", "javaClassName", "message"}}.
Status ErrorFrom(const Reply& r, const std::string& what) {
  std::string detail = r.body;
  std::string exception;
  auto j = Json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("RemoteException")) {
    const auto& e = j["RemoteException"];
    exception = e.value("exception", "");
    detail = e.value("javaClassName", exception) + ": " + e.value("message", "");
  }
  std::string m = what + ": HTTP " + std::to_string(r.code) + " " + detail;
  if (r.code == 404 || exception == "FileNotFoundException") return NotFound(m);
  if (r.code == 401 || r.code == 403) return PermissionDenied(m);
  return Internal(m);
}

Result<Json> JsonReply(const Reply& r, const std::string& what) {
  if (r.code != 200) return ErrorFrom(r, what);
  auto j = Json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Internal(what + ": not JSON: " + r.body.substr(0, 200));
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

}  // namespace

Result<std::string> HttpGet(const std::string& url) {
  TONY_ASSIGN_OR_RETURN(Reply r, Exchange("GET", url, nullptr, 0));
  if (r.code != 200) {
    return Unavailable("GET " + url + ": HTTP " + std::to_string(r.code) + ": " +
                       r.body.substr(0, 300));
  }
  return std::move(r.body);
}

WebHdfs::WebHdfs(std::string http_address, std::string user)
    : http_address_(std::move(http_address)), user_(std::move(user)) {}

std::string WebHdfs::Url(const std::string& path, const std::string& op_and_params) const {
  return "http://" + http_address_ + "/webhdfs/v1" + Escape(path) + "?" + op_and_params +
         "&user.name=" + user_;
}

Status WebHdfs::Mkdirs(const std::string& path, const std::string& permission) {
  std::string what = "WebHDFS MKDIRS " + path;
  TONY_ASSIGN_OR_RETURN(
      Reply r, Exchange("PUT", Url(path, "op=MKDIRS&permission=" + permission), nullptr, 0));
  TONY_ASSIGN_OR_RETURN(Json j, JsonReply(r, what));
  if (!j.value("boolean", false)) return Internal(what + ": the NameNode answered false");
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
      Reply r,
      Exchange("PUT", Url(path, "op=CREATE&overwrite=true&permission=" + permission), nullptr, 0));
  if (r.code != 307 || r.location.empty()) return ErrorFrom(r, what);
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
  TONY_ASSIGN_OR_RETURN(Reply w, Exchange("PUT", r.location, &body, size));
  if (w.code != 201) return ErrorFrom(w, what + " (DataNode)");
  return Status::Ok();
}

Result<FileStatus> WebHdfs::GetFileStatus(const std::string& path) {
  std::string what = "WebHDFS GETFILESTATUS " + path;
  TONY_ASSIGN_OR_RETURN(Reply r, Exchange("GET", Url(path, "op=GETFILESTATUS"), nullptr, 0));
  TONY_ASSIGN_OR_RETURN(Json j, JsonReply(r, what));
  if (!j.contains("FileStatus")) return Internal(what + ": no FileStatus in " + r.body);
  const auto& f = j["FileStatus"];
  FileStatus s;
  s.length = f.value("length", int64_t{0});
  s.modification_time = f.value("modificationTime", int64_t{0});
  s.type = f.value("type", "");
  s.permission = f.value("permission", "");
  s.owner = f.value("owner", "");
  return s;
}

Result<std::string> WebHdfs::Open(const std::string& path) {
  std::string what = "WebHDFS OPEN " + path;
  TONY_ASSIGN_OR_RETURN(Reply r, Exchange("GET", Url(path, "op=OPEN"), nullptr, 0));
  if (r.code == 307 && !r.location.empty()) {
    TONY_ASSIGN_OR_RETURN(r, Exchange("GET", r.location, nullptr, 0));
  }
  if (r.code != 200) return ErrorFrom(r, what);
  return r.body;
}

Result<bool> WebHdfs::Delete(const std::string& path, bool recursive) {
  std::string what = "WebHDFS DELETE " + path;
  TONY_ASSIGN_OR_RETURN(Reply r, Exchange("DELETE",
                                          Url(path, std::string("op=DELETE&recursive=") +
                                                        (recursive ? "true" : "false")),
                                          nullptr, 0));
  TONY_ASSIGN_OR_RETURN(Json j, JsonReply(r, what));
  return j.value("boolean", false);
}

}  // namespace tony::hadoop::hdfs
