#include "common/files.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/strings.h"

namespace tony {

namespace fs = std::filesystem;

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrnoStatus("cannot read " + path, errno ? errno : ENOENT);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<std::string> ReadFileBounded(const std::string& path, size_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot read " + path, errno);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return InvalidArgument(path + " is a directory, not a file");
  }
  std::string out;
  char buf[64 * 1024];
  while (out.size() <= max_bytes) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return ErrnoStatus("cannot read " + path, err);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (out.size() > max_bytes) {
    return InvalidArgument(path + " is larger than " + std::to_string(max_bytes) + " bytes");
  }
  return out;
}

int WriteAllAndClose(int fd, std::string_view data) {
  size_t done = 0;
  int err = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

Status WriteFileAtomic(const std::string& path, const std::string& content, int mode) {
  std::string tmp = path + ".tmp." + RandomHex(6);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return ErrnoStatus("cannot write " + path, errno);
  int err = WriteAllAndClose(fd, content);
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return ErrnoStatus("cannot write " + path, err);
  }
  return Status::Ok();
}

Status MakeDirs(const std::string& path, int mode) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return Internal("cannot create directory " + path + ": " + ec.message());
  // An existing directory gets the mode too; one that cannot (another user's, a read-only file
  // system) is refused rather than used with a mode tony did not choose.
  if (::chmod(path.c_str(), static_cast<mode_t>(mode)) != 0) {
    char m[8];
    std::snprintf(m, sizeof(m), "%04o", static_cast<unsigned>(mode));
    return ErrnoStatus("cannot set mode " + std::string(m) + " on directory " + path, errno);
  }
  return Status::Ok();
}

Status CheckPrivateDir(const std::string& path, bool follow_link) {
  struct stat st {};
  if ((follow_link ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) {
    return ErrnoStatus("cannot stat " + path, errno);
  }
  const std::string advice =
      ": tony keeps job records, staged jobs and its bundle only in a directory of your own, "
      "which nobody else could have planted; remove it or set TONY_HOME to a directory of yours";
  if (S_ISLNK(st.st_mode)) return PermissionDenied(path + " is a symbolic link" + advice);
  if (!S_ISDIR(st.st_mode)) return FailedPrecondition(path + " is not a directory");
  if (st.st_uid != ::geteuid()) {
    return PermissionDenied(path + " is owned by uid " + std::to_string(st.st_uid) +
                            ", not by you (uid " + std::to_string(::geteuid()) + ")" + advice);
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return PermissionDenied(path + " is writable by " +
                            ((st.st_mode & S_IWOTH) != 0 ? "every user" : "its group") + " (mode " +
                            mode + ")" + advice);
  }
  return Status::Ok();
}

Status MakePrivateDir(const std::string& path, bool follow_link) {
  if (::mkdir(path.c_str(), 0700) == 0) return Status::Ok();
  if (errno == ENOENT) {
    // Parents first (theirs are not checked: a home directory may well be group-readable).
    std::string parent = fs::path(path).parent_path().string();
    if (!parent.empty() && parent != path) {
      std::error_code ec;
      fs::create_directories(parent, ec);
      if (ec) return Internal("cannot create directory " + parent + ": " + ec.message());
    }
    if (::mkdir(path.c_str(), 0700) == 0) return Status::Ok();
  }
  if (errno != EEXIST) return ErrnoStatus("cannot create directory " + path, errno);
  return CheckPrivateDir(path, follow_link);
}

Status MakeNewPrivateDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0) {
    return ErrnoStatus("cannot create directory " + path, errno);
  }
  return Status::Ok();
}

Status RemoveAll(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) return Internal("cannot remove " + path + ": " + ec.message());
  return Status::Ok();
}

bool PathExists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Result<std::string> AbsolutePath(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) return Internal("cannot resolve " + path + ": " + ec.message());
  return p.lexically_normal().string();
}

std::string JoinPath(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (!b.empty() && b[0] == '/') return b;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

std::string BaseName(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::vector<std::string> TailLines(const std::string& path, size_t n) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(line);
    if (lines.size() > n) lines.pop_front();
  }
  return {lines.begin(), lines.end()};
}

std::vector<std::string> TailOfFile(const std::string& path, size_t max_lines, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  std::streamoff size = in.tellg();
  std::streamoff window =
      std::min<std::streamoff>(size, static_cast<std::streamoff>(4 * max_bytes));
  std::string data(static_cast<size_t>(window), '\0');
  in.seekg(size - window);
  if (!in.read(data.data(), window)) return {};
  return TailText(data, max_lines, max_bytes);
}

Result<std::string> MakeTempDir(const std::string& parent, const std::string& prefix) {
  std::string templ = JoinPath(parent, prefix + "XXXXXX");
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr)
    return ErrnoStatus("cannot create temp dir " + templ, errno);
  return std::string(buf.data());
}

Result<std::string> SelfExecutable() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n < 0) return ErrnoStatus("readlink /proc/self/exe", errno);
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace tony
