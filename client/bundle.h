// The tony bundle: what `tony submit` ships to YARN so that nothing has to be installed on the
// cluster's nodes.
//
// A .tar.gz that the NodeManager unpacks (LocalResource type ARCHIVE, docs/hadoop-ipc.md §4.2):
//   bin/tony   this executable without its debug sections
//   lib/<so>   every shared library it loads, under its soname, except glibc's and the dynamic
//              loader's (IsBaseSystemLibrary): those belong to the node's kernel and loader
// bin/tony finds lib/ through its DT_RPATH $ORIGIN/../lib (cli/CMakeLists.txt). DT_RPATH, unlike
// DT_RUNPATH, also applies to the libraries' own dependencies (libcurl's libnghttp2, ...), and
// it wins over the container's LD_LIBRARY_PATH; the user's processes, started by the executor,
// do not inherit it. The bundle needs a glibc on the node at least as new as the build machine's.
//
// Bundles are cached in <cache dir>/bundle-<key>.tar.gz, the key hashing the binary's and every
// library's path, size and modification time, so a submit reuses the bundle until tony or one of
// its libraries changes. Building one checks with the dynamic loader that bin/tony resolves every
// bundled library inside the bundle.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace tony::client {

// One line of the dynamic loader's listing (`ldd`): the name the binary asks for and the file
// the loader picked; `path` is empty when the loader found none ("not found").
struct SharedLibrary {
  std::string soname;
  std::string path;
};

// Parses `ldd` output. The vDSO (no file) is left out; a static binary gives an empty list.
std::vector<SharedLibrary> ParseLoaderListing(std::string_view text);

// glibc's libraries and the dynamic loader: every Linux node has its own, matched to its loader.
bool IsBaseSystemLibrary(std::string_view soname);

// The shared libraries `binary` loads, as the dynamic loader resolves them here.
Result<std::vector<SharedLibrary>> LoadedLibraries(const std::string& binary);

// The path of the bundle for `binary` in `cache_dir`, built there first unless cached.
Result<std::string> BuildBundle(const std::string& binary, const std::string& cache_dir);

// Inside a YARN container the bundle is the ARCHIVE resource engine::kBundleResource, and tony is
// engine::kBundleBinary in it (engine/yarn_contract.h).

}  // namespace tony::client
