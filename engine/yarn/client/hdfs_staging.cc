#include "engine/yarn/client/hdfs_staging.h"

#include <iostream>
#include <optional>
#include <set>

#include "client/resources.h"
#include "client/staging.h"
#include "client/warnings.h"
#include "common/files.h"
#include "common/strings.h"
#include "config/key_names.h"
#include "engine/yarn/client/yarn_security.h"
#include "rpc/spec_file.h"

namespace tony::client {
namespace {

// Uploads one staged file and describes it as a LocalResource (exact size and mtime,
// docs/hadoop-ipc.md §6).
Result<engine::YarnResource> Upload(hadoop::hdfs::WebHdfs& fs, const Cluster& c,
                                    const std::string& local, const std::string& remote_dir,
                                    const std::string& name, const std::string& permission) {
  std::string remote = remote_dir + "/" + name;
  TONY_RETURN_IF_ERROR(fs.CreateFromFile(remote, local, permission));
  TONY_ASSIGN_OR_RETURN(auto st, fs.GetFileStatus(remote));
  return engine::YarnResource{
      name,
      {"hdfs", c.conf.fs_host, c.conf.fs_port, remote, st.length, st.modification_time},
      false,
      {}};
}

// Uploads the local file `local`, if it exists, for the AM and (`for_tasks`) every executor; an
// `archive_as` name makes it an ARCHIVE the NM unpacks into a directory of that name.
Status UploadIfStaged(hadoop::hdfs::WebHdfs& fs, const Cluster& c, const std::string& remote,
                      const std::string& local, const std::string& name, bool for_tasks,
                      StagedResources* out, const char* archive_as = nullptr) {
  if (!PathExists(local)) return Status::Ok();
  TONY_ASSIGN_OR_RETURN(engine::YarnResource r, Upload(fs, c, local, remote, name, "600"));
  if (archive_as != nullptr) {
    r.name = archive_as;
    r.archive = true;
  }
  out->am.push_back(r);
  if (for_tasks) out->tasks.push_back(r);
  return Status::Ok();
}

// One resource entry as YARN localizes it: a local file uploaded (a directory zipped and
// unpacked by the NM), a remote one localized from where it is with the size and time the
// NameNode reports, which the NM checks. nullopt: an --hdfs_classpath path that does not exist,
// skipped with a warning as TonY does.
Result<std::optional<engine::YarnResource>> LocalizeResource(
    hadoop::hdfs::WebHdfs& fs, const Cluster& c, const ResourceRef& ref, bool from_classpath,
    const history::JobPaths& paths, const std::string& remote_dir, size_t n) {
  if (!ref.remote) {
    TONY_ASSIGN_OR_RETURN(std::string local, AbsolutePath(ref.source));
    bool zip_dir = IsDirectory(local);
    if (zip_dir) {
      std::string zipped = paths.Staging() + "/resource-" + std::to_string(n) + ".zip";
      TONY_RETURN_IF_ERROR(RunQuiet({"zip", "-q", "-r", "-y", zipped, "."}, local)
                               .WithContext("archiving resource " + ref.text));
      local = zipped;
    }
    // The NM picks how to unpack an ARCHIVE by the uploaded file's name.
    std::string upload_name =
        "resource-" + std::to_string(n) + "-" + ref.name + (zip_dir ? ".zip" : "");
    TONY_ASSIGN_OR_RETURN(engine::YarnResource r,
                          Upload(fs, c, local, remote_dir, upload_name, "600"));
    r.name = ref.name;
    r.archive = ref.archive || zip_dir;
    return std::optional<engine::YarnResource>(r);
  }
  if (!ref.host.empty() && ref.host != c.conf.fs_host) {
    return InvalidArgument("resource " + ref.text + ": only the default file system's (" +
                           c.conf.fs_host + ") paths can be localized");
  }
  auto st = fs.GetFileStatus(ref.path);
  if (!st.ok() && st.status().code() == StatusCode::kNotFound && from_classpath) {
    std::cerr << "tony: warning: --hdfs_classpath " << ref.source << " does not exist; skipped\n";
    return std::optional<engine::YarnResource>();
  }
  if (!st.ok()) return st.status().WithContext("resource " + ref.text);
  // A directory is localized whole (YARN copies it recursively).
  engine::YarnResource r{ref.name,
                         {ref.scheme, c.conf.fs_host, ref.host.empty() ? c.conf.fs_port : ref.port,
                          ref.path, st->length, st->modification_time},
                         ref.archive,
                         {}};
  return std::optional<engine::YarnResource>(r);
}

// tony.containers.resources go to every container, the AM's included (as TonY);
// tony.<role>.resources to that role's; tony.am.resources to the AM's.
Result<StagedResources> StageResources(hadoop::hdfs::WebHdfs& fs, const Cluster& c,
                                       const Configuration& conf, const JobSpec& spec,
                                       const SubmitOptions& o, const history::JobPaths& paths,
                                       const std::string& remote_dir) {
  struct Scope {
    std::string key;
    std::vector<std::string> roles;
    bool tasks = true;
    bool am = false;
  };
  std::vector<Scope> scopes = {{keys::kContainersResources, {}, true, true},
                               {keys::kAmResources, {}, false, true}};
  for (const RoleSpec& r : spec.roles)
    scopes.push_back({keys::ForRole(keys::kRoleResources, r.name), {r.name}});
  std::set<std::string> classpath;
  for (const auto& p : o.hdfs_classpath) {
    classpath.insert(p.find("://") == std::string::npos ? "hdfs://" + p : p);
  }
  StagedResources out;
  size_t n = 0;
  for (const Scope& scope : scopes) {
    for (const std::string& entry : SplitTrimmed(conf.GetOr(scope.key, ""), ',')) {
      TONY_ASSIGN_OR_RETURN(ResourceRef ref, ParseResourceRef(entry));
      TONY_ASSIGN_OR_RETURN(
          std::optional<engine::YarnResource> r,
          LocalizeResource(fs, c, ref, classpath.count(entry) > 0, paths, remote_dir, n++));
      if (!r) continue;
      r->roles = scope.roles;
      if (scope.tasks) out.tasks.push_back(*r);
      if (scope.am) out.am.push_back(*r);
    }
  }
  // The job's own Hadoop, for every task container (the AM runs no JVM): an ARCHIVE the NM
  // unpacks into JobSpec::hadoop_archive.
  const std::string location(Trim(conf.GetOr(keys::kApplicationHadoopLocation, "")));
  if (!location.empty()) {
    TONY_ASSIGN_OR_RETURN(ResourceRef ref, HadoopLocationResource(location));
    TONY_ASSIGN_OR_RETURN(std::optional<engine::YarnResource> r,
                          LocalizeResource(fs, c, ref, false, paths, remote_dir, n++));
    if (r) out.tasks.push_back(*r);
  }
  return out;
}

}  // namespace

std::string StagingDir(const Cluster& c, const std::string& app_id) {
  return "/user/" + c.user + "/.tony/" + app_id;
}

Result<StagedResources> StageToHdfs(hadoop::hdfs::WebHdfs& fs, const Cluster& c,
                                    const Configuration& conf, const JobSpec& spec,
                                    const SubmitOptions& o, const history::JobPaths& paths,
                                    const std::string& bundle, const std::string& remote) {
  TONY_RETURN_IF_ERROR(fs.Mkdirs(remote, "700"));
  StagedResources files;
  // An archive the NM unpacks into ./tony-bundle; it recognizes one by the .tar.gz name.
  TONY_RETURN_IF_ERROR(UploadIfStaged(fs, c, remote, bundle,
                                      std::string(engine::kBundleResource) + ".tar.gz", true,
                                      &files, engine::kBundleResource));
  // tony-final.xml for people and TonY's tasks (TonY localizes it everywhere); the spec file is
  // what the AM and the executors run the job with.
  TONY_RETURN_IF_ERROR(
      UploadIfStaged(fs, c, remote, paths.FinalConf(), "tony-final.xml", true, &files));
  TONY_RETURN_IF_ERROR(
      UploadIfStaged(fs, c, remote, paths.SpecFile(), rpc::kJobSpecFileName, true, &files));
  TONY_RETURN_IF_ERROR(UploadIfStaged(fs, c, remote, paths.Staging() + "/tony_src.zip",
                                      "tony_src.zip", true, &files));
  TONY_RETURN_IF_ERROR(
      UploadIfStaged(fs, c, remote, paths.Staging() + "/venv.zip", "venv.zip", true, &files));
  TONY_ASSIGN_OR_RETURN(StagedResources extra, StageResources(fs, c, conf, spec, o, paths, remote));
  files.tasks.insert(files.tasks.end(), extra.tasks.begin(), extra.tasks.end());
  files.am.insert(files.am.end(), extra.am.begin(), extra.am.end());
  std::string resources_file = paths.Staging() + "/" + engine::kResourcesFile;
  TONY_RETURN_IF_ERROR(
      WriteFileAtomic(resources_file, engine::FormatYarnResources(files.tasks), 0600));
  TONY_RETURN_IF_ERROR(
      UploadIfStaged(fs, c, remote, resources_file, engine::kResourcesFile, false, &files));
  return files;
}

void RemoveStaging(const Cluster& c, const std::string& app_id) {
  const history::JobPaths paths(history::JobsRoot() + "/" + app_id);
  if (PathExists(JoinPath(paths.root, kKeepStagingFile))) return;  // tony submit --debug
  WarnIfFailed(RemoveAll(paths.Staging()), "the job's local staging copy is left");
  const std::string remote = StagingDir(c, app_id);
  auto deleted = MakeWebHdfs(c.conf, c.security, c.webhdfs)->Delete(remote);
  WarnIfFailed(deleted.status(), "the staging dir " + remote + " of " + app_id + " is left",
               "remove it with: hdfs dfs -rm -r " + remote);
}

}  // namespace tony::client
