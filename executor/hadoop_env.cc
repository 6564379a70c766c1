#include "executor/hadoop_env.h"

#include <glob.h>
#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <utility>

#include "common/files.h"
#include "common/log.h"
#include "common/strings.h"
#include "config/key_names.h"
#include "hadoop/hdfs/tls.h"
#include "hadoop/security/credentials.h"

namespace tony {
namespace {

namespace security = hadoop::security;

constexpr int kClasspathTimeoutMs = 60'000;

// $VAR, ${VAR} and YARN's {{VAR}} replaced by their values in `env` ("" when unset; PWD is the
// working directory).
std::string ExpandVariables(const std::string& text, const EnvMap& env) {
  auto value = [&env](const std::string& name) {
    // The working directory's own path, whether or not the launcher exported PWD.
    if (name == "PWD") {
      std::error_code ec;
      std::string cwd = std::filesystem::current_path(ec).string();
      if (!ec) return cwd;
    }
    auto it = env.find(name);
    return it == env.end() ? std::string() : it->second;
  };
  auto is_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "{{") == 0) {
      size_t end = text.find("}}", i + 2);
      if (end != std::string::npos) {
        out += value(text.substr(i + 2, end - i - 2));
        i = end + 2;
        continue;
      }
    }
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      size_t end = text.find('}', i + 2);
      if (end != std::string::npos) {
        out += value(text.substr(i + 2, end - i - 2));
        i = end + 1;
        continue;
      }
    }
    if (text[i] == '$' && i + 1 < text.size() && is_name(text[i + 1])) {
      size_t end = i + 1;
      while (end < text.size() && is_name(text[end])) ++end;
      out += value(text.substr(i + 1, end - i - 1));
      i = end;
      continue;
    }
    out += text[i++];
  }
  return out;
}

std::string Get(const EnvMap& env, const std::string& key) {
  auto it = env.find(key);
  return it == env.end() ? "" : it->second;
}

// The CAs of an https cluster (hadoop::hdfs::kTrustAlias of the container's credentials) as a
// file in the container's directory (TONY_JOB_DIR, else the working directory), named by
// TONY_WEBHDFS_CA_FILE.
void AddTrustFile(EnvMap& env, const security::Credentials& creds) {
  const std::string* pem = creds.FindSecret(hadoop::hdfs::kTrustAlias);
  if (pem == nullptr) return;
  std::string dir = Get(env, "TONY_JOB_DIR");
  std::error_code ec;
  if (dir.empty()) dir = std::filesystem::current_path(ec).string();
  if (ec) return;
  std::string path = JoinPath(dir, hadoop::hdfs::kTrustFile);
  if (Status s = WriteFileAtomic(path, *pem); !s.ok()) {
    TONY_LOG(kWarning) << "the cluster's CA certificates for the user process: " << s.message();
    return;
  }
  env["TONY_WEBHDFS_CA_FILE"] = path;
}

void AddTokens(EnvMap& env) {
  const std::string path = Get(env, "HADOOP_TOKEN_FILE_LOCATION");
  if (path.empty()) return;
  auto creds = security::Credentials::ReadFile(path);
  if (!creds.ok()) {
    TONY_LOG(kWarning) << "no HDFS tokens for the user process: " << creds.status().message();
    return;
  }
  AddTrustFile(env, *creds);
  const std::string service = Get(env, "TONY_HDFS_TOKEN_SERVICE");
  std::vector<std::string> pairs;
  const security::Token* default_fs = nullptr;
  int hdfs_tokens = 0;
  for (const auto& [alias, t] : creds->tokens()) {
    bool hdfs = t.kind == security::kHdfsDelegationTokenKind;
    if (!hdfs && t.kind != security::kWebHdfsDelegationTokenKind &&
        t.kind != security::kSWebHdfsDelegationTokenKind) {
      continue;
    }
    pairs.push_back(t.service + "=" + security::EncodeTokenUrlString(t));
    if (!hdfs) continue;
    ++hdfs_tokens;
    if (service.empty() ? default_fs == nullptr : t.service == service) default_fs = &t;
  }
  if (pairs.empty()) return;
  env["TONY_HDFS_DELEGATION_TOKENS"] = Join(pairs, ",");
  if (default_fs != nullptr && (!service.empty() || hdfs_tokens == 1)) {
    env["TONY_HDFS_DELEGATION_TOKEN"] = security::EncodeTokenUrlString(*default_fs);
  }
}

// The job's archive's bin/hadoop, or that of a directory one level down (a tarball's top-level
// hadoop-3.x.y/); "" with a warning naming the key when there is none.
std::string FindArchiveHadoop(const std::string& dir) {
  if (::access(JoinPath(dir, "bin/hadoop").c_str(), X_OK) == 0) return JoinPath(dir, "bin/hadoop");
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::string candidate = JoinPath(entry.path().string(), "bin/hadoop");
    if (entry.is_directory(ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  TONY_LOG(kWarning) << keys::kApplicationHadoopLocation << ": no executable bin/hadoop in " << dir
                     << (ec ? " (" + ec.message() + ")" : std::string())
                     << " nor in a directory inside it; the node's Hadoop is used if it has one";
  return "";
}

// `hadoop` of the node: the Hadoop home's bin/hadoop, else the first on PATH.
std::string FindHadoop(const EnvMap& env) {
  for (const char* home : {"HADOOP_HDFS_HOME", "HADOOP_HOME"}) {
    std::string dir = Get(env, home);
    if (!dir.empty() && ::access(JoinPath(dir, "bin/hadoop").c_str(), X_OK) == 0) {
      return JoinPath(dir, "bin/hadoop");
    }
  }
  for (const std::string& dir : SplitTrimmed(Get(env, "PATH"), ':')) {
    if (!dir.empty() && ::access(JoinPath(dir, "hadoop").c_str(), X_OK) == 0) {
      return JoinPath(dir, "hadoop");
    }
  }
  return "";
}

// `hadoop classpath --glob`, bounded; nullopt (and a warning) when it fails.
std::optional<std::string> HadoopClasspath(const std::string& hadoop, const EnvMap& env) {
  auto dir = MakeTempDir(Get(env, "TMPDIR").empty() ? "/tmp" : Get(env, "TMPDIR"), "tony-cp-");
  if (!dir.ok()) {
    TONY_LOG(kWarning) << "hadoop classpath: " << dir.status().message();
    return std::nullopt;
  }
  SpawnOptions o;
  o.argv = {hadoop, "classpath", "--glob"};
  o.env = env;
  o.stdout_path = JoinPath(*dir, "out");
  o.stderr_path = JoinPath(*dir, "err");
  o.group = ProcessGroupMode::kNewGroup;
  o.parent_death_signal = SIGKILL;
  std::optional<std::string> out;
  auto pid = Spawn(o);
  if (!pid.ok()) {
    TONY_LOG(kWarning) << "running " << hadoop << " classpath --glob: " << pid.status().message();
  } else if (auto st = AwaitChildExit(*pid, kClasspathTimeoutMs); !st) {
    SignalGroup(*pid, SIGKILL);
    // Only reaps: SIGKILL ends it, and the warning below says what the task loses.
    (void)AwaitChildExit(*pid, 5000);
    TONY_LOG(kWarning) << hadoop << " classpath --glob did not finish within "
                       << kClasspathTimeoutMs / 1000 << " s; the task gets no Hadoop CLASSPATH";
  } else if (ExitCodeFromWaitStatus(*st) != 0) {
    auto err = ReadFileBounded(o.stderr_path, 2000);
    TONY_LOG(kWarning) << hadoop << " classpath --glob failed (" << DescribeWaitStatus(*st)
                       << "): " << (err.ok() ? std::string(Trim(*err)) : "");
  } else if (auto text = ReadFileBounded(o.stdout_path, 1 << 20); text.ok()) {
    out = std::string(Trim(*text));
  }
  if (Status removed = RemoveAll(*dir); !removed.ok()) {
    TONY_LOG(kWarning) << "hadoop classpath: " << removed.message();
  }
  return out;
}

void AppendPath(EnvMap& env, const std::string& key, const std::string& dir) {
  if (!IsDirectory(dir)) return;
  std::string& v = env[key];
  v = v.empty() ? dir : v + ":" + dir;
}

void AddHadoopClasspath(EnvMap& env, const JobHadoop& job) {
  if (env.count("SKIP_HADOOP_PATH") > 0) return;
  std::string hadoop;
  if (!job.archive_dir.empty()) hadoop = FindArchiveHadoop(job.archive_dir);
  const bool own = !hadoop.empty();
  if (hadoop.empty()) hadoop = FindHadoop(env);
  if (!job.classpath.empty()) {
    env["CLASSPATH"] = ExpandClasspath(job.classpath, env);
    static bool said = false;  // once per executor, not once per local process
    if (!std::exchange(said, true)) {
      TONY_LOG(kInfo) << "CLASSPATH of the user process from " << keys::kApplicationHadoopClasspath;
    }
  } else {
    if (hadoop.empty()) return;
    // One run per executor (nproc-per-task builds this environment once per local process).
    static std::map<std::string, std::optional<std::string>> cache;
    auto it = cache.find(hadoop);
    if (it == cache.end()) {
      it = cache.emplace(hadoop, HadoopClasspath(hadoop, env)).first;
      if (it->second) TONY_LOG(kInfo) << "CLASSPATH of the user process from " << hadoop;
    }
    if (!it->second) return;
    env["CLASSPATH"] = *it->second;
  }
  if (hadoop.empty()) return;
  // <home>/bin/hadoop -> <home>, through a symlink on PATH to the real installation. The job's
  // own Hadoop is its home whatever the node's environment says.
  std::string home = own ? std::filesystem::path(hadoop).parent_path().parent_path().string()
                         : Get(env, "HADOOP_HDFS_HOME");
  if (home.empty()) {
    std::error_code ec;
    std::filesystem::path real = std::filesystem::canonical(hadoop, ec);
    home = (ec ? std::filesystem::path(hadoop) : real).parent_path().parent_path().string();
  }
  env["HADOOP_HDFS_HOME"] = home;
  std::string java = Get(env, "JAVA_HOME");
  if (!java.empty() && PathExists(JoinPath(java, "lib/server/libjvm.so"))) {
    AppendPath(env, "LD_LIBRARY_PATH", JoinPath(java, "lib/server"));
  }
  AppendPath(env, "LD_LIBRARY_PATH", JoinPath(home, "lib/native"));
}

}  // namespace

void AddHdfsAccess(EnvMap& env, const JobHadoop& job) {
  AddTokens(env);
  AddHadoopClasspath(env, job);
}

Status RenewTokenFile(const std::string& credentials) {
  const char* path = std::getenv("HADOOP_TOKEN_FILE_LOCATION");
  if (path == nullptr || *path == '\0') {
    return FailedPrecondition("HADOOP_TOKEN_FILE_LOCATION is not set: no token file to renew");
  }
  TONY_ASSIGN_OR_RETURN(security::Credentials renewed, security::Credentials::Parse(credentials));
  TONY_ASSIGN_OR_RETURN(security::Credentials file, security::Credentials::ReadFile(path));
  for (const auto& [alias, token] : renewed.tokens()) file.AddToken(alias, token);
  return file.WriteFile(path, security::Credentials::Format::kWritable);
}

std::string ExpandClasspath(const std::vector<std::string>& entries, const EnvMap& env) {
  std::vector<std::string> out;
  for (const std::string& entry : entries) {
    std::string path = ExpandVariables(entry, env);
    if (path.find_first_of("*?[") == std::string::npos) {
      out.push_back(path);
      continue;
    }
    glob_t found{};
    if (::glob(path.c_str(), 0, nullptr, &found) == 0) {
      for (size_t i = 0; i < found.gl_pathc; ++i) out.emplace_back(found.gl_pathv[i]);
    }
    ::globfree(&found);
  }
  return Join(out, ":");
}

}  // namespace tony
