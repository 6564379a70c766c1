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
//  - TonY's Hadoop classpath, for JVM and libhdfs readers, where the node has Hadoop:
//    $HADOOP_HDFS_HOME/bin/hadoop, $HADOOP_HOME/bin/hadoop or `hadoop` on PATH. CLASSPATH becomes
//    `hadoop classpath --glob`'s output (TonY's executor runs the command with that CLASSPATH),
//    HADOOP_HDFS_HOME is set when it was not (TensorFlow's HDFS file system looks for
//    lib/native/libhdfs.so there), and LD_LIBRARY_PATH gains $JAVA_HOME's libjvm.so directory and
//    the Hadoop home's lib/native when they exist (TonY leaves that to the user). SKIP_HADOOP_PATH
//    set in the container turns this off, as in TonY.
// tony.execution.envs is applied after these, so a user's own CLASSPATH wins.
// Thread-safety: the executor's main thread; `hadoop classpath` runs once per executor.
#pragma once

#include "common/process.h"

namespace tony {

// Adds the variables above to `env` (the user process's environment being built, which also
// says where Hadoop and the token file are). Failures are warnings in the executor's log.
void AddHdfsAccess(EnvMap& env);

}  // namespace tony
