#include "executor/hadoop_env.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>

#include "common/files.h"
#include "common/log.h"
#include "common/strings.h"
#include "hadoop/security/credentials.h"

namespace tony {
namespace {

namespace security = hadoop::security;

constexpr int kClasspathTimeoutMs = 60'000;

std::string Get(const EnvMap& env, const std::string& key) {
  auto it = env.find(key);
  return it == env.end() ? "" : it->second;
}

void AddTokens(EnvMap& env) {
  const std::string path = Get(env, "HADOOP_TOKEN_FILE_LOCATION");
  if (path.empty()) return;
  auto creds = security::Credentials::ReadFile(path);
  if (!creds.ok()) {
    TONY_LOG(kWarning) << "no HDFS tokens for the user process: " << creds.status().message();
    return;
  }
  const std::string service = Get(env, "TONY_HDFS_TOKEN_SERVICE");
  std::vector<std::string> pairs;
  const security::Token* default_fs = nullptr;
  int hdfs_tokens = 0;
  for (const auto& [alias, t] : creds->tokens()) {
    bool hdfs = t.kind == security::kHdfsDelegationTokenKind;
    if (!hdfs && t.kind != security::kWebHdfsDelegationTokenKind) continue;
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
  (void)RemoveAll(*dir);
  return out;
}

void AppendPath(EnvMap& env, const std::string& key, const std::string& dir) {
  if (!IsDirectory(dir)) return;
  std::string& v = env[key];
  v = v.empty() ? dir : v + ":" + dir;
}

void AddHadoopClasspath(EnvMap& env) {
  if (env.count("SKIP_HADOOP_PATH") > 0) return;
  const std::string hadoop = FindHadoop(env);
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
  // <home>/bin/hadoop -> <home>, through a symlink on PATH to the real installation.
  std::string home = Get(env, "HADOOP_HDFS_HOME");
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

void AddHdfsAccess(EnvMap& env) {
  AddTokens(env);
  AddHadoopClasspath(env);
}

}  // namespace tony
