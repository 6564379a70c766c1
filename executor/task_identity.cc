#include "executor/task_identity.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/files.h"
#include "common/log.h"
#include "common/net.h"
#include "common/strings.h"
#include "executor/hadoop_env.h"
#include "rpc/job_secret.h"
#include "rpc/spec_file.h"

namespace tony {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

}  // namespace

rpc::TaskRef TaskIdentity::Ref() const {
  rpc::TaskRef ref;
  ref.set_role(role);
  ref.set_index(index);
  ref.set_attempt(attempt);
  return ref;
}

Result<TaskIdentity> ReadIdentity() {
  TaskIdentity id;
  id.job_id = Env("TONY_JOB_ID");
  id.am_address = Env("TONY_AM_ADDRESS");
  id.role = Env("TONY_TASK_ROLE");
  id.spec_path = Env(rpc::kJobSpecPathEnv);
  id.log_dir = Env("TONY_LOG_DIR");
  id.container_id = Env("TONY_CONTAINER_ID");
  auto index = ParseInt64(Env("TONY_TASK_INDEX"));
  auto attempt = ParseInt64(Env("TONY_TASK_ATTEMPT"));
  if (id.am_address.empty() || id.role.empty() || !index || !attempt || id.spec_path.empty()) {
    return InvalidArgument(
        "tony executor runs inside a container started by the tony coordinator; TONY_AM_ADDRESS, "
        "TONY_TASK_ROLE, TONY_TASK_INDEX, TONY_TASK_ATTEMPT and " +
        std::string(rpc::kJobSpecPathEnv) + " must be set");
  }
  id.index = static_cast<int>(*index);
  id.attempt = static_cast<int>(*attempt);
  if (id.log_dir.empty()) id.log_dir = ".";
  auto credentials = rpc::ReadJobCredentials();
  if (!credentials.ok()) return credentials.status();
  id.secret = std::move(credentials->secret);
  id.tls = std::move(credentials->tls);
  id.host = AdvertisedHost();
  return id;
}

void MakeEntryPointExecutable(const std::string& command) {
  auto words = ShellSplit(command);
  if (words.empty() || words[0].empty() || words[0][0] == '/') return;
  if (words[0].find('/') == std::string::npos) return;  // a bare name is a command on PATH
  struct stat st {};
  if (::stat(words[0].c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  mode_t x =
      S_IXUSR | ((st.st_mode & S_IRGRP) ? S_IXGRP : 0) | ((st.st_mode & S_IROTH) ? S_IXOTH : 0);
  if ((st.st_mode & x) == x) return;
  if (::chmod(words[0].c_str(), st.st_mode | x) != 0) {
    TONY_LOG(kWarning) << "could not make " << words[0] << " executable: " << std::strerror(errno);
  }
}

Result<EnvMap> BuildUserEnv(const JobSpec& spec, const TaskIdentity& id,
                            const runtime::Cluster& cluster, int local_rank,
                            const runtime::Published& published) {
  EnvMap env = CurrentEnvironment();
  // Where the secret came from (it is gone from there by now): not the user's business.
  env.erase(kSecretFdEnv);
  env.erase("MALLOC_ARENA_MAX");  // TonY #346: it slows TensorFlow down
  runtime::TaskEnvInput in;
  in.spec = &spec;
  in.job_id = id.job_id;
  in.role = id.role;
  in.index = id.index;
  in.attempt = id.attempt;
  in.cluster = cluster;
  in.published = published;
  in.local_rank = local_rank;
  in.am_host = Env("AM_HOST");
  in.am_port = static_cast<int>(ParseInt64(Env("AM_PORT")).value_or(0));
  TONY_ASSIGN_OR_RETURN(EnvMap task_env, runtime::BuildTaskEnv(in));
  for (auto& [k, v] : task_env) env[k] = std::move(v);
  JobHadoop job_hadoop;
  job_hadoop.classpath = spec.hadoop_classpath;
  if (!spec.hadoop_archive.empty()) {
    std::error_code ec;
    std::filesystem::path cwd = std::filesystem::current_path(ec);
    job_hadoop.archive_dir = (ec ? std::filesystem::path(".") : cwd) / spec.hadoop_archive;
  }
  AddHdfsAccess(env, job_hadoop);  // tokens for WebHDFS clients, TonY's Hadoop CLASSPATH
  for (const auto& kv : spec.execution_envs) {
    size_t eq = kv.find('=');
    if (eq == 0) continue;  // no name (refused at submit)
    // "K" alone is K with an empty value, as TonY's key=value parsing has it.
    env[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
  }
  return env;
}

std::string DescribeSelf() {
  auto self = SelfExecutable();
  std::string grpc;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    size_t slash = line.find('/');
    if (slash != std::string::npos && line.find("/libgrpc++", slash) != std::string::npos) {
      grpc = line.substr(slash);
      break;
    }
  }
  return "executor exe=" + (self.ok() ? *self : "?") + " grpc=" + (grpc.empty() ? "?" : grpc);
}

}  // namespace tony
