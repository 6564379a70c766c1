#include "client/resources.h"

#include "client/staging.h"
#include "common/files.h"
#include "common/strings.h"
#include "config/key_names.h"

namespace tony::client {
namespace {

Status CheckEntry(const std::string& key, const std::string& entry, const ResourceRef& ref,
                  bool fetches_remote) {
  if (ref.remote && !fetches_remote) {
    return InvalidArgument(key + " entry " + entry + ": the local engine cannot fetch " +
                           ref.scheme + ":// resources (YARN localizes them: --engine yarn)");
  }
  if (!ref.remote && !PathExists(ref.source)) {
    return InvalidArgument(key + " entry " + entry + ": no such file or directory " + ref.source);
  }
  if (!ref.remote && ref.archive && IsDirectory(ref.source)) {
    return InvalidArgument(key + " entry " + entry + ": #archive names a directory, not an " +
                           "archive (a directory is shipped as it is without #archive)");
  }
  return Status::Ok();
}

Status CheckEntries(const std::string& key, const std::string& value, bool fetches_remote) {
  for (const std::string& entry : SplitTrimmed(value, ',')) {
    TONY_ASSIGN_OR_RETURN(ResourceRef ref, ParseResourceRef(entry));
    TONY_RETURN_IF_ERROR(CheckEntry(key, entry, ref, fetches_remote));
  }
  return Status::Ok();
}

// The framework archive of tony.application.hadoop.location (config/resources.h), named as the
// user wrote it; a directory is not a tarball.
Status CheckHadoopLocation(const Configuration& conf, bool fetches_remote) {
  const std::string key = keys::kApplicationHadoopLocation;
  const std::string location(Trim(conf.GetOr(key, "")));
  if (location.empty()) return Status::Ok();
  TONY_ASSIGN_OR_RETURN(ResourceRef ref, HadoopLocationResource(location));
  if (!ref.remote && IsDirectory(ref.source)) {
    return InvalidArgument(key + " " + location +
                           ": a directory; it names a Hadoop tarball (.tar.gz, .tgz, .tar or "
                           ".zip) that every task container unpacks");
  }
  return CheckEntry(key, location, ref, fetches_remote);
}

Status StageOne(const ResourceRef& ref, const std::string& dir) {
  TONY_ASSIGN_OR_RETURN(std::string source, AbsolutePath(ref.source));
  std::string dest = JoinPath(dir, ref.name);
  if (PathExists(dest)) {
    return InvalidArgument("two resources are named " + ref.name + " (" + ref.text + ")");
  }
  if (ref.archive) return UnpackArchive(source, dest).WithContext("resource " + ref.text);
  return RunQuiet({"cp", "-R", "-L", source, dest}, "").WithContext("staging resource " + ref.text);
}

}  // namespace

Status CheckResources(const Configuration& conf, const JobSpec& spec, bool fetches_remote) {
  std::vector<std::string> resource_keys = {keys::kContainersResources, keys::kAmResources};
  for (const RoleSpec& r : spec.roles) {
    resource_keys.push_back(keys::ForRole(keys::kRoleResources, r.name));
  }
  for (const std::string& key : resource_keys) {
    TONY_RETURN_IF_ERROR(CheckEntries(key, conf.GetOr(key, ""), fetches_remote));
  }
  return CheckHadoopLocation(conf, fetches_remote);
}

Status StageLocalResources(const JobSpec& spec, const history::JobPaths& paths) {
  for (const RoleSpec& r : spec.roles) {
    if (r.resources.empty()) continue;
    std::string dir = paths.Resources(r.name);
    TONY_RETURN_IF_ERROR(MakeDirs(dir, 0700));
    for (const std::string& entry : r.resources) {
      TONY_ASSIGN_OR_RETURN(ResourceRef ref, ParseResourceRef(entry));
      TONY_RETURN_IF_ERROR(StageOne(ref, dir));
    }
  }
  return Status::Ok();
}

Status UnpackArchive(const std::string& archive, const std::string& dir) {
  TONY_RETURN_IF_ERROR(MakeDirs(dir, 0700));
  std::string lower = ToLower(archive);
  if (EndsWith(lower, ".tar.gz") || EndsWith(lower, ".tgz") || EndsWith(lower, ".tar") ||
      EndsWith(lower, ".tar.bz2")) {
    return RunQuiet({"tar", "-xf", archive, "-C", dir, "--no-same-owner"}, "");
  }
  return RunQuiet({"unzip", "-qq", "-o", archive, "-d", dir}, "");
}

}  // namespace tony::client
