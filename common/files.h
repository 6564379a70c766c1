// File-system helpers. All return Status/Result; none throws.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace tony {

Result<std::string> ReadFile(const std::string& path);
// Reads a regular file of at most `max_bytes`. A directory fails with "is a directory", a larger
// file (or an endless one such as /dev/zero) with "larger than N bytes", never reading more
// than max_bytes + 1.
Result<std::string> ReadFileBounded(const std::string& path, size_t max_bytes);
// Writes to a fresh "<path>.tmp.<random>" (O_EXCL|O_NOFOLLOW: never through a file or link
// planted there) then renames, so readers never see half a file. Errors name `path` (the
// temporary's random name would make every failure of a rewritten file a new message).
Status WriteFileAtomic(const std::string& path, const std::string& content, int mode = 0644);
// Writes all of `data` to `fd` (short writes and EINTR retried), then closes it. Returns 0, or
// the first error's errno: a write's (one that writes nothing is EIO), else close's, which is
// where NFS and friends report a full disk. For callers that name the file in their own words.
int WriteAllAndClose(int fd, std::string_view data);
// Creates `path` and its parents and sets its mode (an existing directory too); an error names
// the directory when either fails.
Status MakeDirs(const std::string& path, int mode = 0755);
Status RemoveAll(const std::string& path);
// A directory only this user can write to, for what tony keeps (README "Directories tony
// trusts"): created 0700 (missing parents too) or, when it is there, checked: a directory (not a
// symlink to one, unless `follow_link`: TONY_HOME itself may be one), owned by this user, not
// writable by group or others. Otherwise an error naming the path, its owner or mode and why:
// another user could have planted it, or what is in it.
Status MakePrivateDir(const std::string& path, bool follow_link = false);
// The check MakePrivateDir makes of a directory that is already there, alone: for readers of what
// tony keeps, which must not trust a directory another user could have planted either.
Status CheckPrivateDir(const std::string& path, bool follow_link = false);
// A new directory, 0700; an error when anything is already there (EEXIST included).
Status MakeNewPrivateDir(const std::string& path);
bool PathExists(const std::string& path);
bool IsDirectory(const std::string& path);
Result<std::string> AbsolutePath(const std::string& path);
std::string JoinPath(const std::string& a, const std::string& b);
std::string BaseName(const std::string& path);
// The last `n` lines of a text file (fewer if it is shorter); empty when unreadable.
std::vector<std::string> TailLines(const std::string& path, size_t n);
// TailText (common/strings.h) of the file's end; reads at most 4 * max_bytes from its end, so a
// multi-gigabyte log costs no more than a small one. Empty when the file cannot be read.
std::vector<std::string> TailOfFile(const std::string& path, size_t max_lines, size_t max_bytes);
// Creates a fresh directory "<parent>/<prefix>XXXXXX".
Result<std::string> MakeTempDir(const std::string& parent, const std::string& prefix);
// The path of the running executable (/proc/self/exe resolved).
Result<std::string> SelfExecutable();

}  // namespace tony
