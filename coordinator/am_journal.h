// The AM's journal file (docs/am-restart.md §3, rpc/am_journal.proto): the coordinator's
// core::JobJournal serialized whole, at `<staging dir>/am/journal.pb`, written as
// `journal.pb.tmp` and renamed over it so that a reader sees one whole journal.
// Thread-safety: plain functions.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "coordinator/core/job_state_machine.h"

namespace tony {

// The format this build writes and the only one it reads (rpc/am_journal.proto says when it
// changes).
inline constexpr int32_t kAmJournalVersion = 1;

// <staging dir>/am/journal.pb and the temporary file it is written as.
std::string AmJournalPath(const std::string& staging_dir);
std::string AmJournalTmpPath(const std::string& staging_dir);

// The file's bytes for `journal` (an AmJournal of kAmJournalVersion).
std::string SerializeAmJournal(const core::JobJournal& journal);

// The journal in `bytes`; an error, naming `source`, when they are not an AmJournal, are of
// another version, or hold a value no journal can have (an unknown task state, phase or status).
Result<core::JobJournal> ParseAmJournal(const std::string& bytes, const std::string& source);

}  // namespace tony
