// The job's extra resources (tony.containers.resources, tony.<role>.resources,
// tony.am.resources, --hdfs_classpath; grammar in config/resources.h) on their way into the
// containers. On YARN the client uploads local sources and the NodeManager localizes every entry
// (yarn_submit.cc); on the local engine they are staged here, once, into the job dir, and the
// coordinator links a role's entries into each of its tasks' working directories.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "config/configuration.h"
#include "config/job_spec.h"
#include "config/resources.h"
#include "history/job_dir.h"

namespace tony::client {

// Before anything starts: every local source exists, and no entry is remote unless the engine's
// containers fetch remote resources (`fetches_remote`: EngineClientFace::FetchesRemoteResources).
// Errors name the key, the entry and the reason.
Status CheckResources(const Configuration& conf, const JobSpec& spec, bool fetches_remote);

// Local engine: each role's entries as JobPaths::Resources(role)/<name> (a copy; an #archive
// unpacked into a directory of that name), for the coordinator to link into its tasks.
Status StageLocalResources(const JobSpec& spec, const history::JobPaths& paths);

// Unpacks a zip, tar, tar.gz/tgz or tar.bz2 (chosen by the name's ending, zip otherwise) into
// `dir`, as YARN unpacks an ARCHIVE resource.
Status UnpackArchive(const std::string& archive, const std::string& dir);

}  // namespace tony::client
