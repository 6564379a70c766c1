// The NameNode's WebHDFS replies (docs/hadoop-ipc.md §6): GETFILESTATUS's FileStatus (whose length
// and modification time go into every LocalResource), MKDIRS/DELETE's boolean,
// RENEWDELEGATIONTOKEN's long and the RemoteException of an error, for any HTTP code;
// GETDELEGATIONTOKEN's Token.urlString.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "hadoop/hdfs/webhdfs.h"

namespace hdfs = tony::hadoop::hdfs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string body(reinterpret_cast<const char*>(data), size);
  (void)hdfs::ParseFileStatusReply(body, "WebHDFS GETFILESTATUS /fuzz");
  (void)hdfs::ParseBooleanReply(body, "WebHDFS DELETE /fuzz");
  (void)hdfs::ParseLongReply(body, "WebHDFS RENEWDELEGATIONTOKEN");
  if (auto url = hdfs::ParseDelegationTokenReply(body, "WebHDFS GETDELEGATIONTOKEN"); url.ok()) {
    FUZZ_CHECK(!url->empty() && url->size() <= size);
  } else {
    // The reply holds a secret: its error never quotes the body, only its size. (Checked as the
    // exact text: a body that happens to be a piece of that text is not a quote of it.)
    FUZZ_CHECK(url.status().message() ==
               "WebHDFS GETDELEGATIONTOKEN: the reply has no Token.urlString (" +
                   std::to_string(size) + " bytes)");
  }
  for (long code : {200L, 307L, 403L, 404L, 500L}) {
    tony::Status s = hdfs::ErrorFromReply(code, body, "WebHDFS OPEN /fuzz");
    FUZZ_CHECK(!s.ok());
    FUZZ_CHECK(s.message().size() < 1000 + 2 * size);
  }
  return 0;
}
