#include "tests/hadoop/minicluster.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <pugixml.hpp>
#include <thread>

#include "common/files.h"
#include "common/log.h"
#include "common/net.h"
#include "common/process.h"
#include "common/strings.h"

namespace tony::testing {
namespace {

constexpr std::string_view kReadyLine = "MINICLUSTER READY";
constexpr auto kStopGrace = std::chrono::seconds(40);

}  // namespace

Result<std::unique_ptr<MiniCluster>> MiniCluster::Start(const MiniClusterOptions& options) {
  char dir_template[] = "/tmp/tony_minicluster_XXXXXX";
  if (::mkdtemp(dir_template) == nullptr) return ErrnoStatus("mkdtemp", errno);
  std::unique_ptr<MiniCluster> mc(new MiniCluster());
  mc->conf_dir_ = dir_template;
  std::string fifo = mc->conf_dir_ + "/stdin.fifo";
  if (::mkfifo(fifo.c_str(), 0600) != 0) return ErrnoStatus("mkfifo " + fifo, errno);
  // O_RDWR never blocks on a FIFO and makes us its writer, so the child's O_RDONLY open does not
  // block either; when we close it the child reads EOF. CLOEXEC keeps it out of the child.
  mc->stdin_fd_ = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  if (mc->stdin_fd_ < 0) return ErrnoStatus("open " + fifo, errno);

  SpawnOptions spawn;
  spawn.argv = {options.start_script, mc->conf_dir_, std::to_string(options.node_managers)};
  spawn.env = CurrentEnvironment();
  spawn.stdout_path = mc->conf_dir_ + "/stdout.log";
  spawn.stderr_path = mc->conf_dir_ + "/stderr.log";
  spawn.stdin_path = fifo;
  spawn.group = ProcessGroupMode::kNewSession;
  spawn.parent_death_signal = SIGTERM;
  auto start = std::chrono::steady_clock::now();
  TONY_ASSIGN_OR_RETURN(mc->pid_, Spawn(spawn));

  auto deadline = start + options.start_timeout;
  while (true) {
    auto out = ReadFile(spawn.stdout_path);
    if (out.ok() && out->find(kReadyLine) != std::string::npos) break;
    int status = 0;
    if (::waitpid(mc->pid_, &status, WNOHANG) == mc->pid_) {
      mc->pid_ = -1;
      auto err = ReadFile(spawn.stderr_path);
      std::string tail = err.ok() ? err->substr(err->size() > 3000 ? err->size() - 3000 : 0) : "";
      return Unavailable("minicluster exited (" + DescribeWaitStatus(status) +
                         ") before it was ready; stderr ends with:\n" + tail);
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return DeadlineExceeded("minicluster not ready after " +
                              std::to_string(options.start_timeout.count()) + " s; see " +
                              spawn.stderr_path);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  mc->start_duration_ = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  return mc;
}

MiniCluster::~MiniCluster() { Stop(); }

void MiniCluster::Stop() {
  if (stdin_fd_ >= 0) {
    ::close(stdin_fd_);  // EOF on the JVM's stdin: it stops its clusters and exits
    stdin_fd_ = -1;
  }
  if (pid_ <= 0) return;
  pid_t session = pid_;  // kNewSession: the JVM leads a session of its own
  auto deadline = std::chrono::steady_clock::now() + kStopGrace;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (pid_ > 0) {
    TONY_LOG(kWarning) << "minicluster did not stop within " << kStopGrace.count()
                       << " s; killing its session";
    KillSession(pid_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  KillSession(session);  // anything the JVM left behind in its session
  if (std::getenv("TONY_KEEP_MINICLUSTER") == nullptr) {
    Status removed = RemoveAll(conf_dir_);
    if (!removed.ok()) TONY_LOG(kWarning) << "minicluster: " << removed.ToString();
  }
}

Result<std::string> MiniCluster::Property(const std::string& file, const std::string& key) const {
  std::string path = conf_dir_ + "/" + file;
  pugi::xml_document doc;
  pugi::xml_parse_result parsed = doc.load_file(path.c_str());
  if (!parsed) return InvalidArgument(path + ": " + parsed.description());
  for (pugi::xml_node prop : doc.child("configuration").children("property")) {
    if (key == prop.child_value("name")) return std::string(prop.child_value("value"));
  }
  return NotFound(path + " has no " + key);
}

Result<std::pair<std::string, uint16_t>> MiniCluster::Address(const std::string& file,
                                                              const std::string& key) const {
  TONY_ASSIGN_OR_RETURN(std::string value, Property(file, key));
  TONY_ASSIGN_OR_RETURN(HostPort address, ParseHostPort(value, key + " in " + file));
  return std::make_pair(address.host, address.port);
}

}  // namespace tony::testing
