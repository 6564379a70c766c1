// What both engines' submit flows share: staging the job's files into the local job directory,
// quiet helper commands, and the client's interrupt (Ctrl-C) counter.
#pragma once

#include <string>
#include <vector>

#include "client/submit.h"
#include "common/status.h"
#include "history/job_dir.h"

namespace tony::client {

// Runs a command with its stdout discarded; an error names the command and how it ended.
Status RunQuiet(const std::vector<std::string>& argv, const std::string& cwd);

// Checks that `path`, given as `flag` (--src_dir, --python_venv), is a zip archive whose every
// entry `unzip -t` can read, so a bad archive fails the submit (exit 2, nothing started) instead
// of every task. The error carries unzip's own reason.
Status CheckZipArchive(const std::string& flag, const std::string& path);

// Stages --src_dir as staging/tony_src.zip (a directory is zipped, an archive copied) and
// --python_venv as staging/venv.zip, as TonY uploads them; engines localize them into every
// container, where the executor unpacks them.
Status StageJobFiles(const SubmitOptions& o, const history::JobPaths& paths);

// SIGINT/SIGTERM only count; the follow loops read the count and stop the job on purpose (the
// first time gently, the second time by force).
void InstallInterruptHandlers();
int Interrupts();
// What to tell the user, and the job's kill reason, naming the signal that interrupted the
// client: Ctrl-C (SIGINT) or SIGTERM (a scheduler stopping it), which are not the same story.
std::string InterruptNotice(const std::string& what);
// The job's message when a second interrupt forced the end.
std::string InterruptForcedReason();
std::string InterruptKillReason();

}  // namespace tony::client
