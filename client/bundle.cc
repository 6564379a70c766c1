#include "client/bundle.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "client/staging.h"
#include "client/warnings.h"
#include "common/files.h"
#include "common/net.h"
#include "common/process.h"
#include "common/strings.h"

namespace tony::client {
namespace {

namespace fs = std::filesystem;

constexpr char kDigestSuffix[] = ".sha256";  // beside each bundle: its content's SHA-256
constexpr int kBundlesKept = 3;  // besides the one in use: other tony builds sharing TONY_HOME

struct Captured {
  int exit_code = 0;
  std::string output;  // stdout and stderr
};

// Runs a command to its end; its output goes through a file in `scratch`.
Result<Captured> RunCaptured(const std::vector<std::string>& argv, const std::string& scratch) {
  std::string out_path = scratch + "/.captured." + std::to_string(::getpid());
  SpawnOptions o;
  o.argv = argv;
  o.env = CurrentEnvironment();
  o.stdout_path = out_path;
  o.stderr_path = out_path;
  ::unlink(out_path.c_str());
  TONY_ASSIGN_OR_RETURN(pid_t pid, Spawn(o));
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  Captured c;
  c.exit_code = ExitCodeFromWaitStatus(st);
  if (auto text = ReadFile(out_path); text.ok()) c.output = std::move(text).value();
  ::unlink(out_path.c_str());
  return c;
}

uint64_t Fnv1a(std::string_view data) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : data) {
    h ^= ch;
    h *= 1099511628211ULL;
  }
  return h;
}

// "<path> <size> <mtime ns>" of the file a path leads to (symlinks followed).
Result<std::string> Fingerprint(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus("cannot stat " + path, errno);
  int64_t mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return path + " " + std::to_string(st.st_size) + " " + std::to_string(mtime_ns);
}

std::string Canonical(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

// The loader, asked about the staged bin/tony, must find every bundled library in lib/.
Status CheckResolvesInside(const std::string& root) {
  std::string binary = root + "/bin/tony";
  TONY_ASSIGN_OR_RETURN(auto libs, LoadedLibraries(binary));
  std::string lib_dir = Canonical(root + "/lib");
  for (const auto& lib : libs) {
    if (IsBaseSystemLibrary(lib.soname)) continue;
    std::string where = lib.path.empty() ? "" : Canonical(lib.path);
    if (where.empty() || fs::path(where).parent_path().string() != lib_dir) {
      return FailedPrecondition(
          "the bundled tony does not load " + lib.soname + " from its lib/ dir (the loader picks " +
          (lib.path.empty() ? "nothing" : lib.path) +
          "): tony must be linked with the DT_RPATH $ORIGIN/../lib (cli/CMakeLists.txt)");
    }
  }
  return Status::Ok();
}

// Keeps the newest kBundlesKept bundles besides `current` (mtime is refreshed on every use).
// The SHA-256 of a file, in hex.
Result<std::string> FileSha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrnoStatus("cannot open " + path, errno);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (ctx == nullptr || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    return Internal("SHA-256 is not available");
  }
  std::vector<char> buf(1 << 16);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return Internal("cannot read " + path);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &length);
  std::string hex;
  char byte[3];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(byte, sizeof(byte), "%02x", digest[i]);
    hex += byte;
  }
  return hex;
}

// Whether the cached bundle is the one tony built: its content against the digest recorded
// beside it when it was built. A name alone proves nothing (anyone can compute it).
bool CachedBundleIntact(const std::string& bundle) {
  auto recorded = ReadFileBounded(bundle + kDigestSuffix, 128);
  auto actual = FileSha256(bundle);
  if (recorded.ok() && actual.ok() && Trim(*recorded) == *actual) return true;
  std::cerr << "tony: warning: the cached bundle " << bundle
            << (recorded.ok() ? " does not match the SHA-256 recorded when it was built"
                              : " has no SHA-256 recorded beside it")
            << "; building it again\n";
  return false;
}

void PruneCache(const std::string& cache_dir, const std::string& current) {
  std::vector<std::pair<fs::file_time_type, fs::path>> bundles;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(cache_dir, ec)) {
    std::string name = e.path().filename().string();
    if (!StartsWith(name, "bundle-") || !EndsWith(name, ".tar.gz")) continue;
    if (e.path().string() == current) continue;
    bundles.emplace_back(e.last_write_time(ec), e.path());
  }
  std::sort(bundles.begin(), bundles.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = kBundlesKept; i < bundles.size(); ++i) {
    for (const std::string& path :
         {bundles[i].second.string(), bundles[i].second.string() + kDigestSuffix}) {
      std::error_code removed;
      fs::remove(path, removed);
      if (removed) {
        WarnIfFailed(ErrnoStatus("removing " + path, removed.value()),
                     "the bundle cache is not pruned", "it keeps growing until this is fixed");
      }
    }
  }
}

Status Assemble(const std::string& binary, const std::vector<SharedLibrary>& libs,
                const std::string& root) {
  TONY_RETURN_IF_ERROR(MakeDirs(root + "/bin", 0755));
  TONY_RETURN_IF_ERROR(MakeDirs(root + "/lib", 0755));
  std::string staged = root + "/bin/tony";
  // Without debug sections when objcopy is there (a RelWithDebInfo tony: 55 MB becomes 4 MB).
  if (!RunQuiet({"objcopy", "--strip-debug", binary, staged}, "").ok()) {
    TONY_RETURN_IF_ERROR(RunQuiet({"cp", binary, staged}, "").WithContext("copying " + binary));
  }
  ::chmod(staged.c_str(), 0755);
  for (const auto& lib : libs) {
    if (IsBaseSystemLibrary(lib.soname)) continue;
    std::error_code ec;
    std::string dest = root + "/lib/" + lib.soname;
    fs::copy_file(lib.path, dest, fs::copy_options::overwrite_existing, ec);
    if (ec) return Internal("copying " + lib.path + " into the bundle: " + ec.message());
    ::chmod(dest.c_str(), 0755);
  }
  return Status::Ok();
}

}  // namespace

std::vector<SharedLibrary> ParseLoaderListing(std::string_view text) {
  std::vector<SharedLibrary> out;
  for (const auto& raw : SplitTrimmed(text, '\n')) {
    std::string line(Trim(raw));
    // "name => /path (0x...)", "name => not found", "/lib64/ld-linux-x86-64.so.2 (0x...)",
    // "linux-vdso.so.1 (0x...)" (no file behind it).
    if (line.empty() || line.find("(0x") == std::string::npos) {
      if (line.find("=> not found") == std::string::npos) continue;
    }
    SharedLibrary lib;
    size_t arrow = line.find(" => ");
    if (arrow != std::string::npos) {
      lib.soname = line.substr(0, arrow);
      std::string rest = line.substr(arrow + 4);
      if (rest != "not found") {
        lib.path = std::string(Trim(rest.substr(0, rest.find(" (0x"))));
        if (!StartsWith(lib.path, "/")) continue;  // "name =>  (0x...)": a virtual object
      }
    } else {
      std::string path = line.substr(0, line.find(" (0x"));
      if (!StartsWith(path, "/")) continue;  // the vDSO
      lib.soname = BaseName(path);
      lib.path = path;
    }
    out.push_back(std::move(lib));
  }
  return out;
}

bool IsBaseSystemLibrary(std::string_view soname) {
  // glibc's shared objects (glibc 2.34+ merged libpthread/libdl/librt/libutil/libanl into libc
  // but keeps the sonames) and the loader under its per-architecture names.
  static constexpr std::string_view kGlibc[] = {"libc.so.6",         "libm.so.6",
                                                "libmvec.so.1",      "libpthread.so.0",
                                                "libdl.so.2",        "librt.so.1",
                                                "libresolv.so.2",    "libutil.so.1",
                                                "libanl.so.1",       "libBrokenLocale.so.1",
                                                "libthread_db.so.1", "libc_malloc_debug.so.0",
                                                "libnsl.so.1",       "libcidn.so.1",
                                                "libmemusage.so",    "libpcprofile.so"};
  for (std::string_view g : kGlibc) {
    if (soname == g) return true;
  }
  return StartsWith(soname, "ld-linux") || StartsWith(soname, "ld64.so") ||
         StartsWith(soname, "ld.so") || StartsWith(soname, "libnss_");
}

Result<std::vector<SharedLibrary>> LoadedLibraries(const std::string& binary) {
  std::string scratch = ::getenv("TMPDIR") != nullptr ? ::getenv("TMPDIR") : "/tmp";
  TONY_ASSIGN_OR_RETURN(Captured c, RunCaptured({"ldd", binary}, scratch));
  if (c.exit_code != 0) {
    // ldd exits 1 for a static executable ("not a dynamic executable"): nothing to bundle.
    if (c.output.find("not a dynamic executable") != std::string::npos ||
        c.output.find("statically linked") != std::string::npos) {
      return std::vector<SharedLibrary>{};
    }
    return Internal("ldd " + binary + " failed (exit " + std::to_string(c.exit_code) +
                    "): " + std::string(Trim(c.output)).substr(0, 500));
  }
  return ParseLoaderListing(c.output);
}

Result<std::string> BuildBundle(const std::string& binary, const std::string& cache_dir) {
  TONY_ASSIGN_OR_RETURN(auto libs, LoadedLibraries(binary));
  // The port-hold preload library goes to lib/ too: the executor looks for it beside bin/tony.
  // Without it the tasks still run; their ports are then released before their processes start.
  auto shim = ReusePortShimBeside(binary);
  if (shim.ok()) libs.push_back({kReusePortShimName, *shim});
  WarnIfFailed(shim.status(), "the bundle lacks the port-hold library",
               "the job's tasks release their ports before their processes start");
  TONY_ASSIGN_OR_RETURN(std::string key_text, Fingerprint(binary));
  key_text = "tony-bundle-v1\n" + key_text + "\n";
  for (const auto& lib : libs) {
    if (IsBaseSystemLibrary(lib.soname)) continue;
    if (lib.path.empty()) {
      return NotFound(binary + " needs " + lib.soname + " but the dynamic loader finds no " +
                      lib.soname + " on this machine (ldd " + binary + ")");
    }
    TONY_ASSIGN_OR_RETURN(std::string f, Fingerprint(lib.path));
    key_text += lib.soname + " " + f + "\n";
  }
  char key[17];
  std::snprintf(key, sizeof(key), "%016llx", static_cast<unsigned long long>(Fnv1a(key_text)));
  TONY_RETURN_IF_ERROR(MakePrivateDir(cache_dir));
  std::string bundle = cache_dir + "/bundle-" + key + ".tar.gz";
  if (PathExists(bundle) && CachedBundleIntact(bundle)) {
    // Most recently used, for PruneCache.
    if (::utimensat(AT_FDCWD, bundle.c_str(), nullptr, 0) != 0) {
      WarnIfFailed(ErrnoStatus("touching " + bundle, errno), "the cached bundle is not marked used",
                   "the cache may prune it first");
    }
    return bundle;
  }
  TONY_ASSIGN_OR_RETURN(std::string root, MakeTempDir(cache_dir, ".bundle-"));
  auto build = [&]() -> Status {
    TONY_RETURN_IF_ERROR(Assemble(binary, libs, root));
    TONY_RETURN_IF_ERROR(CheckResolvesInside(root));
    std::string archive = root + "/bundle.tar.gz";
    TONY_RETURN_IF_ERROR(
        RunQuiet({"tar", "-czf", archive, "-C", root, "bin", "lib"}, "").WithContext("archiving"));
    TONY_ASSIGN_OR_RETURN(std::string digest, FileSha256(archive));
    TONY_RETURN_IF_ERROR(WriteFileAtomic(bundle + kDigestSuffix, digest + "\n", 0600));
    // Atomic: a concurrent submit sees the whole bundle or none.
    if (::rename(archive.c_str(), bundle.c_str()) != 0) {
      return ErrnoStatus("cannot rename " + archive + " to " + bundle, errno);
    }
    return Status::Ok();
  };
  Status s = build();
  WarnIfFailed(RemoveAll(root), "the tony bundle's build dir is left");
  if (!s.ok()) return s.WithContext("building the tony bundle in " + cache_dir);
  PruneCache(cache_dir, bundle);
  return bundle;
}

}  // namespace tony::client
