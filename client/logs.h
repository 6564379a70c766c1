// `tony logs`: a task's output files, or the coordinator's log, from the job directory (local
// engine) or from the engine's log URL (YARN: the NodeManager, through the engine's client face,
// client/engine_face.h), once or followed until the task ends (`--follow`, like `kubectl logs -f`).
// Thread-safety: plain functions; `tony logs` runs them on its one thread.
#pragma once

#include <cstdint>
#include <string>

namespace tony::client {

class EngineFaces;  // client/engine_face.h

struct LogsOptions {
  std::string task;            // "role:index"; empty: the coordinator's log
  int attempt = -1;            // < 0: the latest
  std::string stream = "all";  // stdout, stderr, executor or all
  int64_t tail_lines = -1;     // < 0: everything
  bool follow = false;
  int64_t poll_ms = 250;  // how often --follow looks for more
};

// Prints the logs; returns the process exit code (0, 1 when a file could not be read, 2 for a
// bad request such as an unknown task or attempt).
int ShowLogs(const EngineFaces& faces, const std::string& id_or_path, const LogsOptions& options);

}  // namespace tony::client
