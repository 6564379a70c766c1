// What a task's user processes get for reading HDFS themselves (README, "HDFS data for tasks"),
// on top of the TONY_NAMENODE_HTTP_ADDRESS / TONY_WEBHDFS_URL the AM passes on
// (engine/yarn_contract.h):
//
//  - Tokens, for WebHDFS clients without a JVM or a Kerberos ticket (a Kerberized cluster):
//    TONY_HDFS_DELEGATION_TOKEN, the default file system's HDFS delegation token of
//    $HADOOP_TOKEN_FILE_LOCATION (the one whose service is $TONY_HDFS_TOKEN_SERVICE; without that
//    variable, the only HDFS token) in the URL-safe form WebHDFS's `delegation=` takes; and
//    TONY_HDFS_DELEGATION_TOKENS, every HDFS and WebHDFS token as service=urlString pairs,
//    comma-separated (tony.other.namenodes: the service is the NameNode's "ip:port").
//  - On a dfs.http.policy=HTTPS_ONLY cluster, the CAs the client trusted (hadoop/hdfs/tls.h) as
//    the file TONY_WEBHDFS_CA_FILE names (tony-webhdfs-ca.pem in $TONY_JOB_DIR, the container),
//    for the https TONY_WEBHDFS_URL.
//  - TonY's Hadoop classpath, for JVM and libhdfs readers, where the node has Hadoop:
//    $HADOOP_HDFS_HOME/bin/hadoop, $HADOOP_HOME/bin/hadoop or `hadoop` on PATH. CLASSPATH becomes
//    `hadoop classpath --glob`'s output (TonY's executor runs the command with that CLASSPATH),
//    HADOOP_HDFS_HOME is set when it was not (TensorFlow's HDFS file system looks for
//    lib/native/libhdfs.so there), and LD_LIBRARY_PATH gains $JAVA_HOME's libjvm.so directory and
//    the Hadoop home's lib/native when they exist (TonY leaves that to the user). SKIP_HADOOP_PATH
//    set in the container turns this off, as in TonY.
//    The job can bring its own Hadoop instead of the node's (TonY's keys):
//    tony.application.hadoop.location's archive, unpacked in the working directory, is searched
//    first (its bin/hadoop, or that of its one top-level directory, as a hadoop-3.x.y/ tarball
//    has it); tony.application.hadoop.classpath, when set, is the CLASSPATH itself ($VAR, ${VAR}
//    and YARN's {{VAR}} expanded from the task's environment, a dir/* or *.jar entry globbed into
//    its jars because libhdfs's JVM does not expand wildcards) and no `hadoop classpath` runs.
// With a keytab submit the AM renews the default file system's token before it dies
// (engine/yarn/token_renewal.h), and the executor puts each new one into
// $HADOOP_TOKEN_FILE_LOCATION (RenewTokenFile); the variables keep the tokens of the start, so a
// long-running reader takes its token from the file.
// tony.execution.envs is applied after these, so a user's own CLASSPATH wins.
// Thread-safety: the executor's main thread; `hadoop classpath` runs once per executor.
#pragma once

#include <string>
#include <vector>

#include "common/process.h"
#include "common/status.h"

namespace tony {

// The job's own Hadoop for its tasks (JobSpec::hadoop_archive, JobSpec::hadoop_classpath).
struct JobHadoop {
  std::string archive_dir;             // the unpacked archive's path; "": none
  std::vector<std::string> classpath;  // entries as written; empty: none
};

// Adds the variables above to `env` (the user process's environment being built, which also
// says where Hadoop and the token file are). Failures are warnings in the executor's log.
void AddHdfsAccess(EnvMap& env, const JobHadoop& job = {});

// Puts renewed delegation tokens (a Hadoop credentials file's bytes, the coordinator's heartbeat
// reply) into $HADOOP_TOKEN_FILE_LOCATION, the container's token file that the user processes
// read (without the job's secret keys, rpc/job_secret.h), replacing those of the same alias. The
// file is replaced whole (a new file renamed over it), so a reader sees the old or the new one.
Status RenewTokenFile(const std::string& credentials);

// tony.application.hadoop.classpath's entries as a CLASSPATH: variables expanded from `env`,
// globs replaced by what they match in order (an entry matching nothing is dropped, as
// `hadoop classpath --glob` drops it), joined by ':'.
std::string ExpandClasspath(const std::vector<std::string>& entries, const EnvMap& env);

}  // namespace tony
