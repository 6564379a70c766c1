#include "config/resources.h"

#include "common/net.h"
#include "common/strings.h"

namespace tony {
namespace {

std::string LastSegment(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// scheme://[host[:port]]/path; an error when `uri` has no scheme or its authority is malformed.
Status SplitUri(const std::string& uri, ResourceRef& r) {
  size_t sep = uri.find("://");
  if (sep == std::string::npos || sep == 0) {
    return InvalidArgument("not a URI scheme://[host[:port]]/path");
  }
  r.scheme = ToLower(uri.substr(0, sep));
  std::string rest = uri.substr(sep + 3);
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  r.path = slash == std::string::npos ? "/" : rest.substr(slash);
  TONY_ASSIGN_OR_RETURN(Authority a, ParseAuthority(authority, "the URI's authority"));
  r.host = std::move(a.host);
  if (a.port) r.port = *a.port;
  return Status::Ok();
}

}  // namespace

bool IsReservedResourceName(const std::string& name) {
  // tony-spec.pb: rpc::kJobSpecFileName (a layer above this one).
  for (const char* reserved : {"tony_src.zip", "venv.zip", "venv", "tony-final.xml", "tony-spec.pb",
                               "tony-bundle", "secret", "tony-resources.txt"}) {
    if (name == reserved) return true;
  }
  return false;
}

Result<ResourceRef> ParseResourceRef(const std::string& text) {
  ResourceRef r;
  r.text = text;
  std::string rest(Trim(text));
  std::string alias;
  if (size_t hash = rest.rfind('#'); hash != std::string::npos) {
    std::string fragment = rest.substr(hash + 1);
    rest.resize(hash);
    if (ToLower(fragment) == "archive") {
      r.archive = true;
    } else {
      alias = fragment;
    }
  }
  if (size_t colons = rest.find("::"); colons != std::string::npos) {
    if (!alias.empty()) return InvalidArgument("both ::NAME and #NAME name it");
    alias = rest.substr(colons + 2);
    rest.resize(colons);
  }
  if (rest.empty()) return InvalidArgument("no path");
  if (StartsWith(rest, "file://")) rest = rest.substr(7);
  if (rest.find("://") != std::string::npos) {
    TONY_RETURN_IF_ERROR(SplitUri(rest, r));
    r.remote = true;
  }
  r.source = rest;
  r.name = alias.empty() ? LastSegment(r.remote ? r.path : rest) : alias;
  if (r.name.empty() || r.name == "." || r.name == ".." || r.name == "/" ||
      r.name.find('/') != std::string::npos) {
    return InvalidArgument("\"" + r.name + "\" cannot name a file in the working directory");
  }
  if (IsReservedResourceName(r.name)) {
    return InvalidArgument("the name " + r.name + " is tony's own; choose another with ::NAME");
  }
  return r;
}

Result<ResourceRef> HadoopLocationResource(const std::string& location) {
  TONY_ASSIGN_OR_RETURN(ResourceRef ref, ParseResourceRef(location));
  ref.archive = true;
  ref.text = ref.source + "::" + ref.name + "#archive";
  return ref;
}

}  // namespace tony
