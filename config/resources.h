// Resource strings: the entries of tony.containers.resources, tony.<role>.resources,
// tony.am.resources and --hdfs_classpath, in TonY's grammar SOURCE[::NAME][#archive]; a fragment
// other than "archive" is Hadoop's alias form SOURCE#NAME (as `hadoop jar -files` takes it).
//
//   /data/vocab.txt                  a local file, as vocab.txt in the task's working directory
//   conf/                            a local directory, as conf/ (on YARN zipped and unpacked)
//   /tmp/env.zip#archive             unpacked into the directory env.zip
//   /tmp/env.zip::env#archive        unpacked into the directory env
//   /tmp/a.txt#b.txt                 linked as b.txt
//   hdfs:///user/me/env.zip#archive  localized by YARN from the default FS
//
// A pure parser; whether a local source exists is checked where the job is staged.
#pragma once

#include <string>

#include "common/status.h"

namespace tony {

struct ResourceRef {
  std::string text;    // as written
  std::string source;  // local path (file:// removed) or the URI as written
  std::string name;    // the name in the container's working directory
  bool archive = false;
  // A URI with a scheme other than file:// (hdfs://, viewfs://, ...): YARN localizes it itself.
  bool remote = false;
  std::string scheme;  // remote only
  std::string host;    // remote only; empty: the default FS's
  int port = -1;       // remote only; -1: the scheme's default
  std::string path;    // remote only: the absolute path on that FS
};

// Errors say what is wrong with the entry; the caller adds the key it came from.
Result<ResourceRef> ParseResourceRef(const std::string& text);

// tony.application.hadoop.location (TonY's Hadoop framework tarball, SOURCE[#ALIAS]) as the
// archive every task container localizes, unpacked into the directory `name` (the alias, else the
// file's name, as YARN names an archive); its `text` is the entry SOURCE::NAME#archive. Errors
// say what is wrong.
Result<ResourceRef> HadoopLocationResource(const std::string& location);

// Names tony itself puts in every container's working directory; a resource may not take them.
bool IsReservedResourceName(const std::string& name);

}  // namespace tony
