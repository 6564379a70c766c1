// The submit flow of `tony submit`: build and validate the configuration, stage the job, start
// the coordinator on the chosen engine, show live task status, and exit with the job's result.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "config/configuration.h"

namespace tony::client {

struct SubmitOptions {
  std::string executes;
  std::string task_params;
  std::string python_binary_path;
  std::string python_venv;
  std::string src_dir;
  std::string conf_file;
  std::vector<std::string> confs;           // --conf k=v, in order
  std::vector<std::string> shell_envs;      // --shell_env K=V
  std::vector<std::string> container_envs;  // --container_env K=V
  std::vector<std::string> hdfs_classpath;  // --hdfs_classpath entries (comma-separated flag)
  std::string engine;                       // "", "local" or "yarn"
  std::string principal;                    // --principal: tony.kerberos.principal
  std::string keytab;                       // --keytab: tony.kerberos.keytab
  std::string proxy_user;                   // --proxy_user: tony.kerberos.proxy-user
  std::string tony_binary;                  // this executable
  // --sidecar_tensorboard_log_dir: tony.application.tensorboard-log-dir (runtime/tensorboard.h)
  std::string sidecar_tensorboard_log_dir;
  // --debug (TonY's): the staged job (the job dir's staging/, on YARN the HDFS staging dir too)
  // stays after the job; by default it goes once the job has ended.
  bool debug = false;
};

// Exit codes: 0 the job succeeded; 1 it failed or was killed; 2 bad input, nothing started.
inline constexpr int kExitSucceeded = 0;
inline constexpr int kExitJobFailed = 1;
inline constexpr int kExitBadInput = 2;

// TonY reads tony.xml (from its class path) when no --conf_file is given; tony reads it from the
// working directory.
inline constexpr char kDefaultJobFile[] = "tony.xml";
// The job file: --conf_file, else ./tony.xml when it exists, else "".
std::string JobFile(const SubmitOptions& options);

class EngineFaces;

// Builds the job's configuration from the options (defaults < --conf_file < tony-site.xml <
// --conf), with the values the flags imply. Errors name the flag or file. A --conf_file no local
// path (hdfs://...) is read by the engine face that reads it.
Result<Configuration> BuildConfiguration(const SubmitOptions& options, const EngineFaces& faces);

// Builds and checks the job, then hands it to the chosen engine's face (client/engine_face.h).
int Submit(const SubmitOptions& options, const EngineFaces& faces);

}  // namespace tony::client
