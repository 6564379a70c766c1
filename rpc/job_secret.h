// Where a tony process finds its job's control-plane secret (README, "The job secret"): never in
// a file, an argument or an environment variable the job's own code could read.
//
// - kSecretFdEnv set (the client starting a local coordinator, the local engine starting an
//   executor): the fd it names, read to EOF once and replaced by /dev/null.
// - otherwise (YARN): the secret key kJobSecretAlias of $HADOOP_TOKEN_FILE_LOCATION, taken out
//   of that file so that the user's processes, which get the same variable, do not find it.
//
// Call once, at start-up, before any other process is started.
#pragma once

#include <string>

#include "common/status.h"

namespace tony::rpc {

Result<std::string> ReadJobSecret();

}  // namespace tony::rpc
