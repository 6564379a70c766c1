// Localize: unpacks what tony staged for a task into its working directory (TonY's executor
// unpacks the src archive there and the venv archive into venv/).
//
// Nothing it unpacks may write outside the working directory: before extracting an archive,
// every entry's path is checked, and an archive with an entry that would be written through an
// existing symlink leaving the directory (one a previous archive unpacked, e.g. a src zip's
// `venv` -> /elsewhere) is refused, naming the entry and the symlink. Symlinks an archive itself
// holds are unpacked as they are (a venv's bin/python3 -> /usr/bin/python3 is normal): unzip
// creates them after every file of that archive, so it never writes through its own links.
// Failures carry unzip's own words.
//
// Runs on the executor's main thread, before any user process; blocks on unzip.
#pragma once

#include <string>

#include "common/status.h"

namespace tony {

// Unpacks ./tony_src.zip into "." and ./venv.zip into ./venv when present. unzip's output goes
// to `log_dir`/unzip.log.
Status Localize(const std::string& log_dir);

// Refuses, naming them, an `entry` of `archive` that unpacked under `dest` (relative to `root`,
// the working directory) would be written through a symlink whose target leaves `root`.
Status CheckEntryPath(const std::string& archive, const std::string& root, const std::string& dest,
                      const std::string& entry);

}  // namespace tony
