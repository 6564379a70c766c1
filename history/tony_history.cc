#include "history/tony_history.h"

#include <avro.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>

#include "common/files.h"
#include "common/strings.h"
#include "config/key_names.h"

namespace tony::history {

namespace {

// TonY's event schema (tony-core's Event.avsc and the records it names), as its generated classes
// carry it: the same names, namespace, field order, types and nullable unions, so that TonY's
// SpecificDatumReader resolves every field. Only the Java code generator's string hint
// ("avro.java.string") is left out: it does not change the encoding.
constexpr char kEventSchema[] = R"({
  "type": "record", "name": "Event", "namespace": "com.linkedin.tony.events",
  "fields": [
    {"name": "type", "type": {"type": "enum", "name": "EventType", "symbols":
      ["APPLICATION_INITED", "APPLICATION_FINISHED", "TASK_STARTED", "TASK_FINISHED"]}},
    {"name": "event", "type": [
      {"type": "record", "name": "ApplicationInited", "fields": [
        {"name": "applicationId", "type": "string"},
        {"name": "numTasks", "type": "int"},
        {"name": "host", "type": "string"},
        {"name": "containerID", "type": ["null", "string"], "default": null}]},
      {"type": "record", "name": "ApplicationFinished", "fields": [
        {"name": "applicationId", "type": "string"},
        {"name": "finishedTasks", "type": "int"},
        {"name": "failedTasks", "type": "int"},
        {"name": "metrics", "type": {"type": "array", "items": {"type": "record",
          "name": "Metric", "fields": [
            {"name": "name", "type": "string"},
            {"name": "value", "type": "double"}]}}}]},
      {"type": "record", "name": "TaskStarted", "fields": [
        {"name": "taskType", "type": "string"},
        {"name": "taskIndex", "type": "int"},
        {"name": "host", "type": "string"},
        {"name": "containerID", "type": ["null", "string"], "default": null}]},
      {"type": "record", "name": "TaskFinished", "fields": [
        {"name": "taskType", "type": "string"},
        {"name": "taskIndex", "type": "int"},
        {"name": "status", "type": "string"},
        {"name": "metrics", "type": {"type": "array", "items": "Metric"}},
        {"name": "containerDiagnostic", "type": ["null", "string"], "default": null}]}]},
    {"name": "timestamp", "type": "long"}]})";

// EventType's symbols and the event union's branches, in the schema's order (the same order).
enum Branch {
  kApplicationInited = 0,
  kApplicationFinished = 1,
  kTaskStarted = 2,
  kTaskFinished = 3
};

// Avro C writes an event into the current block, which must hold it whole. A diagnostic is cut to
// this much (TonY's is the container's few lines), so that every event fits a block.
constexpr size_t kMaxDiagnosticBytes = size_t{16} * 1024;
constexpr size_t kBlockBytes = size_t{256} * 1024;

// TonY creates its history directories with 770: the portal's user reads them through the
// group. Files are 0640: the portal only reads them.
constexpr mode_t kDirMode = 0770;
constexpr mode_t kFileMode = 0640;

Status AvroError(const std::string& what, const std::string& path) {
  return Internal(what + " " + path + ": " + avro_strerror());
}

Status Errno(const std::string& what, const std::string& path, int err) {
  return Unavailable("cannot " + what + " " + path + ": " + std::strerror(err));
}

// One directory level, made with the group's access whatever the umask; an existing directory is
// left as it is. Its parent must exist: a mistyped location is an error, not a new tree.
Status MakeHistoryDir(const std::string& path) {
  if (::mkdir(path.c_str(), kDirMode) == 0) {
    if (::chmod(path.c_str(), kDirMode) != 0) return Errno("set the mode of", path, errno);
    return Status::Ok();
  }
  int err = errno;
  if (err == EEXIST && IsDirectory(path)) return Status::Ok();
  if (err == EEXIST) return Unavailable("cannot create " + path + ": a file is in the way");
  return Errno("create the directory", path, err);
}

// Strips file://; an error for any other scheme, naming the key.
Result<std::string> LocalPath(const std::string& value, const std::string& key) {
  if (StartsWith(value, "file://")) return value.substr(std::strlen("file://"));
  if (value.find("://") != std::string::npos) {
    return InvalidArgument(
        key + "=" + value +
        ": on the local engine tony writes the history to a local path (or file://); on YARN, "
        "to the cluster's default file system");
  }
  return value;
}

std::string Parent(const std::string& path) {
  return std::filesystem::path(path).parent_path().string();
}

Status CopyFile(const std::string& from, const std::string& to) {
  TONY_ASSIGN_OR_RETURN(std::string content, ReadFile(from));
  return WriteFileAtomic(to, content, kFileMode);
}

// Moves a directory of plain files; across file systems (intermediate and finished on different
// mounts) by copying, then removing the source.
Status MoveDir(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) == 0) return Status::Ok();
  int err = errno;
  if (err != EXDEV)
    return Unavailable("cannot move " + from + " to " + to + ": " + std::strerror(err));
  TONY_RETURN_IF_ERROR(MakeHistoryDir(to));
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(from, ec)) {
    TONY_RETURN_IF_ERROR(CopyFile(entry.path().string(), JoinPath(to, entry.path().filename())));
  }
  if (ec) return Unavailable("cannot list " + from + ": " + ec.message());
  return RemoveAll(from);
}

}  // namespace

// The schema, the generic value one event is built in, and the open container file.
struct TonyHistoryWriter::Avro {
  avro_schema_t schema = nullptr;
  avro_value_iface_t* iface = nullptr;
  avro_value_t value{};
  bool has_value = false;
  avro_file_writer_t writer = nullptr;

  ~Avro() {
    if (writer != nullptr) avro_file_writer_close(writer);
    if (has_value) avro_value_decref(&value);
    if (iface != nullptr) avro_value_iface_decref(iface);
    if (schema != nullptr) avro_schema_decref(schema);
  }
};

std::string HistoryAppId(const std::string& job_id) {
  std::string id = job_id;
  for (char& c : id) {
    if (c == '-') c = '_';
  }
  return id;
}

std::optional<TonyHistoryOptions> TonyHistoryOptionsFrom(const JobSpec& spec) {
  if (spec.history_location.empty()) return std::nullopt;
  TonyHistoryOptions o;
  o.intermediate = spec.history_intermediate;
  o.finished = spec.history_finished;
  o.timezone = spec.history_timezone;
  return o;
}

std::string HistoryUser() {
  if (const char* user = std::getenv("USER"); user != nullptr && *user != '\0') return user;
  struct passwd pw {};
  struct passwd* found = nullptr;
  char buf[4096];
  if (::getpwuid_r(::geteuid(), &pw, buf, sizeof(buf), &found) == 0 && found != nullptr) {
    return found->pw_name;
  }
  return std::to_string(::geteuid());
}

Result<std::string> FinishedDatePath(int64_t wall_ms, const std::string& timezone) {
  std::time_t seconds = static_cast<std::time_t>(wall_ms / 1000);
  std::tm tm{};
  if (timezone == "UTC" || timezone == "GMT" || timezone == "Z") {
    if (::gmtime_r(&seconds, &tm) == nullptr) return InvalidArgument("time out of range");
  } else {
    // glibc takes an unknown zone for UTC without a word: check that this machine knows it.
    const char* tzdir = std::getenv("TZDIR");
    std::string zone_file = std::string(tzdir ? tzdir : "/usr/share/zoneinfo") + "/" + timezone;
    if (timezone.empty() || timezone.find("..") != std::string::npos || timezone[0] == '/' ||
        !PathExists(zone_file)) {
      return InvalidArgument(keys::kHistoryFinishedDirTimezone + ("=" + timezone) +
                             ": no such time zone on this machine (" + zone_file + ")");
    }
    // localtime_r reads the zone from TZ, which is process-wide: set it for this one call, under
    // a lock, and put it back. Nothing else in tony reads local time (its logs are UTC).
    static std::mutex tz_mutex;
    std::lock_guard<std::mutex> lock(tz_mutex);
    const char* old = std::getenv("TZ");
    std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
    ::setenv("TZ", timezone.c_str(), 1);
    ::tzset();
    std::tm* ok = ::localtime_r(&seconds, &tm);
    if (saved) {
      ::setenv("TZ", saved->c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
    ::tzset();
    if (ok == nullptr) return InvalidArgument("time out of range");
  }
  char date[16];
  std::strftime(date, sizeof(date), "%Y/%m/%d", &tm);
  return std::string(date);
}

TonyHistoryWriter::TonyHistoryWriter(TonyHistoryOptions options, int64_t started_ms)
    : options_(std::move(options)), started_ms_(started_ms) {}

TonyHistoryWriter::~TonyHistoryWriter() = default;

Result<std::unique_ptr<TonyHistoryWriter>> TonyHistoryWriter::Start(TonyHistoryOptions options,
                                                                    int64_t started_ms) {
  if (!options.error.empty()) return InvalidArgument(options.error);
  if (options.fs == nullptr) {
    TONY_ASSIGN_OR_RETURN(options.intermediate,
                          LocalPath(options.intermediate, keys::kHistoryIntermediate));
    TONY_ASSIGN_OR_RETURN(options.finished, LocalPath(options.finished, keys::kHistoryFinished));
  }
  std::unique_ptr<TonyHistoryWriter> w(new TonyHistoryWriter(std::move(options), started_ms));
  TONY_RETURN_IF_ERROR(w->Open());
  return w;
}

std::string TonyHistoryWriter::job_dir() const {
  return options_.fs ? options_.fs->Describe() + job_dir_ : job_dir_;
}

std::string TonyHistoryWriter::events_path() const {
  return options_.fs ? options_.fs->Describe() + events_path_ : events_path_;
}

Status TonyHistoryWriter::Open() {
  std::string local_dir;  // where this process writes: the job's dir, or its scratch copy
  if (options_.fs != nullptr) {
    TONY_RETURN_IF_ERROR(MakeHistoryDir(options_.scratch));
    local_dir = JoinPath(options_.scratch, options_.app_id);
  } else {
    // The location itself is made when missing (its parent must exist), then intermediate/.
    if (std::string parent = Parent(options_.intermediate);
        !parent.empty() && !IsDirectory(parent)) {
      TONY_RETURN_IF_ERROR(MakeHistoryDir(parent));
    }
    TONY_RETURN_IF_ERROR(MakeHistoryDir(options_.intermediate));
    local_dir = JoinPath(options_.intermediate, options_.app_id);
  }
  job_dir_ = JoinPath(options_.intermediate, options_.app_id);
  TONY_RETURN_IF_ERROR(MakeHistoryDir(local_dir));
  if (!options_.final_conf.empty()) {
    TONY_RETURN_IF_ERROR(CopyFile(options_.final_conf, JoinPath(local_dir, "tony-final.xml")));
  }
  const std::string name = options_.app_id + "-" + std::to_string(started_ms_) + "-" +
                           options_.user + ".jhist.inprogress";
  events_path_ = JoinPath(job_dir_, name);
  local_events_ = JoinPath(local_dir, name);

  auto avro = std::make_unique<Avro>();
  if (avro_schema_from_json_length(kEventSchema, sizeof(kEventSchema) - 1, &avro->schema) != 0) {
    return Internal(std::string("TonY's event schema does not parse: ") + avro_strerror());
  }
  avro->iface = avro_generic_class_from_schema(avro->schema);
  if (avro->iface == nullptr || avro_generic_value_new(avro->iface, &avro->value) != 0) {
    return AvroError("cannot build an event for", local_events_);
  }
  avro->has_value = true;
  int fd = ::open(local_events_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, kFileMode);
  if (fd < 0) return Errno("create", local_events_, errno);
  FILE* fp = ::fdopen(fd, "wb");
  if (fp == nullptr) {
    int err = errno;
    ::close(fd);
    return Errno("open", local_events_, err);
  }
  // should_close: the writer owns fp from here on, also when creating it fails.
  if (avro_file_writer_create_with_codec_fp(fp, local_events_.c_str(), 1, avro->schema,
                                            &avro->writer, "null", kBlockBytes) != 0) {
    avro->writer = nullptr;
    return AvroError("cannot start the Avro file", local_events_);
  }
  // The header goes out now: a reader of a job that has no event yet still opens the file.
  if (avro_file_writer_flush(avro->writer) != 0) return AvroError("cannot write", local_events_);
  avro_ = std::move(avro);
  if (options_.fs != nullptr) return StartMirror();
  return Status::Ok();
}

// The directory, tony-final.xml and the events file so far (its header), queued in that order.
Status TonyHistoryWriter::StartMirror() {
  mirror_ = std::make_unique<HistoryMirror>(options_.fs);
  mirror_->Queue("create " + job_dir_,
                 [dir = job_dir_](HistoryFs& fs) { return fs.MakeDirs(dir); });
  if (!options_.final_conf.empty()) {
    TONY_ASSIGN_OR_RETURN(std::string conf, ReadFile(options_.final_conf));
    std::string path = JoinPath(job_dir_, "tony-final.xml");
    mirror_->Queue("write " + path,
                   [path, conf = std::move(conf)](HistoryFs& fs) { return fs.Create(path, conf); });
  }
  return MirrorNewBytes();
}

Status TonyHistoryWriter::MirrorNewBytes() {
  TONY_RETURN_IF_ERROR(mirror_->error());
  std::FILE* f = std::fopen(local_events_.c_str(), "rb");
  if (f == nullptr) return Errno("read", local_events_, errno);
  std::string bytes;
  char buf[64 * 1024];
  bool read_ok = std::fseek(f, static_cast<long>(mirrored_bytes_), SEEK_SET) == 0;
  while (read_ok) {
    size_t n = std::fread(buf, 1, sizeof buf, f);
    bytes.append(buf, n);
    if (n < sizeof buf) {
      read_ok = std::ferror(f) == 0;
      break;
    }
  }
  std::fclose(f);
  if (!read_ok) return Unavailable("cannot read " + local_events_);
  const bool first = mirrored_bytes_ == 0;
  mirrored_bytes_ += static_cast<int64_t>(bytes.size());
  if (first) {
    mirror_->Queue("write " + events_path_, [path = events_path_, bytes = std::move(bytes)](
                                                HistoryFs& fs) { return fs.Create(path, bytes); });
  } else if (!bytes.empty()) {
    mirror_->Queue("append to " + events_path_,
                   [path = events_path_, bytes = std::move(bytes)](HistoryFs& fs) {
                     return fs.Append(path, bytes);
                   });
  }
  return Status::Ok();
}

// The rest of the events, the final name, then the move into finished/; waits for all of it.
Result<std::string> TonyHistoryWriter::FinishMirror(int64_t completed_ms, const std::string& name) {
  TONY_RETURN_IF_ERROR(MirrorNewBytes());
  const std::string final_events = JoinPath(job_dir_, name);
  mirror_->Queue(
      "rename " + events_path_ + " to " + name,
      [from = events_path_, to = final_events](HistoryFs& fs) { return fs.Rename(from, to); });
  TONY_ASSIGN_OR_RETURN(std::string date, FinishedDatePath(completed_ms, options_.timezone));
  const std::string date_dir = JoinPath(options_.finished, date);
  mirror_->Queue("create " + date_dir, [date_dir](HistoryFs& fs) { return fs.MakeDirs(date_dir); });
  const std::string finished_dir = JoinPath(date_dir, options_.app_id);
  mirror_->Queue(
      "move " + job_dir_ + " to " + finished_dir,
      [from = job_dir_, to = finished_dir](HistoryFs& fs) { return fs.Rename(from, to); });
  TONY_RETURN_IF_ERROR(mirror_->Drain(options_.finish_timeout_ms));
  job_dir_ = finished_dir;
  events_path_ = JoinPath(finished_dir, name);
  return events_path();
}

namespace {

Status Field(avro_value_t* record, const char* name, avro_value_t* out) {
  if (avro_value_get_by_name(record, name, out, nullptr) != 0) {
    return Internal(std::string("the event schema has no field ") + name + ": " + avro_strerror());
  }
  return Status::Ok();
}

Status SetString(avro_value_t* record, const char* name, const std::string& text) {
  avro_value_t f;
  TONY_RETURN_IF_ERROR(Field(record, name, &f));
  // Avro strings are UTF-8; a diagnostic may hold anything a process printed.
  std::string valid = ToValidUtf8(text);
  if (avro_value_set_string_len(&f, valid.c_str(), valid.size() + 1) != 0) {
    return Internal(std::string("setting ") + name + ": " + avro_strerror());
  }
  return Status::Ok();
}

Status SetInt(avro_value_t* record, const char* name, int v) {
  avro_value_t f;
  TONY_RETURN_IF_ERROR(Field(record, name, &f));
  if (avro_value_set_int(&f, v) != 0) return Internal(std::string("setting ") + name);
  return Status::Ok();
}

// A ["null", "string"] field: null for "".
Status SetOptionalString(avro_value_t* record, const char* name, const std::string& text) {
  avro_value_t f;
  avro_value_t branch;
  TONY_RETURN_IF_ERROR(Field(record, name, &f));
  if (avro_value_set_branch(&f, text.empty() ? 0 : 1, &branch) != 0) {
    return Internal(std::string("setting ") + name + ": " + avro_strerror());
  }
  if (text.empty()) {
    if (avro_value_set_null(&branch) != 0) return Internal(std::string("setting ") + name);
    return Status::Ok();
  }
  std::string valid = ToValidUtf8(text);
  if (avro_value_set_string_len(&branch, valid.c_str(), valid.size() + 1) != 0) {
    return Internal(std::string("setting ") + name + ": " + avro_strerror());
  }
  return Status::Ok();
}

Status SetMetrics(avro_value_t* record, const std::vector<HistoryMetric>& metrics) {
  avro_value_t list;
  TONY_RETURN_IF_ERROR(Field(record, "metrics", &list));
  for (const HistoryMetric& m : metrics) {
    avro_value_t item;
    avro_value_t value;
    if (avro_value_append(&list, &item, nullptr) != 0) {
      return Internal(std::string("adding a metric: ") + avro_strerror());
    }
    TONY_RETURN_IF_ERROR(SetString(&item, "name", m.name));
    TONY_RETURN_IF_ERROR(Field(&item, "value", &value));
    if (avro_value_set_double(&value, m.value) != 0) return Internal("setting a metric's value");
  }
  return Status::Ok();
}

}  // namespace

template <typename Fill>
Status TonyHistoryWriter::Append(int branch, int64_t timestamp_ms, Fill&& fill) {
  if (avro_ == nullptr) {
    return FailedPrecondition("the history's events file " + events_path_ + " is closed");
  }
  avro_value_t* event = &avro_->value;
  avro_value_reset(event);
  avro_value_t type;
  avro_value_t body;
  avro_value_t record;
  avro_value_t timestamp;
  TONY_RETURN_IF_ERROR(Field(event, "type", &type));
  TONY_RETURN_IF_ERROR(Field(event, "event", &body));
  TONY_RETURN_IF_ERROR(Field(event, "timestamp", &timestamp));
  if (avro_value_set_enum(&type, branch) != 0 ||
      avro_value_set_branch(&body, branch, &record) != 0 ||
      avro_value_set_long(&timestamp, timestamp_ms) != 0) {
    return AvroError("cannot build an event for", events_path_);
  }
  TONY_RETURN_IF_ERROR(fill(&record));
  if (avro_file_writer_append_value(avro_->writer, event) != 0) {
    return AvroError("cannot append an event to", events_path_);
  }
  // Each event is its own block, on disk before the next: a running job's file is readable.
  if (avro_file_writer_flush(avro_->writer) != 0) return AvroError("cannot write", local_events_);
  if (mirror_ != nullptr) return MirrorNewBytes();
  return Status::Ok();
}

Status TonyHistoryWriter::ApplicationInited(int num_tasks, int64_t timestamp_ms) {
  return Append(kApplicationInited, timestamp_ms, [&](avro_value_t* r) -> Status {
    TONY_RETURN_IF_ERROR(SetString(r, "applicationId", options_.app_id));
    TONY_RETURN_IF_ERROR(SetInt(r, "numTasks", num_tasks));
    TONY_RETURN_IF_ERROR(SetString(r, "host", options_.host));
    return SetOptionalString(r, "containerID", options_.container_id);
  });
}

Status TonyHistoryWriter::TaskStarted(const std::string& task_type, int task_index,
                                      const std::string& host, const std::string& container_id,
                                      int64_t timestamp_ms) {
  return Append(kTaskStarted, timestamp_ms, [&](avro_value_t* r) -> Status {
    TONY_RETURN_IF_ERROR(SetString(r, "taskType", task_type));
    TONY_RETURN_IF_ERROR(SetInt(r, "taskIndex", task_index));
    TONY_RETURN_IF_ERROR(SetString(r, "host", host));
    return SetOptionalString(r, "containerID", container_id);
  });
}

Status TonyHistoryWriter::TaskFinished(const std::string& task_type, int task_index,
                                       const std::string& status,
                                       const std::vector<HistoryMetric>& metrics,
                                       const std::string& container_diagnostic,
                                       int64_t timestamp_ms) {
  return Append(kTaskFinished, timestamp_ms, [&](avro_value_t* r) -> Status {
    TONY_RETURN_IF_ERROR(SetString(r, "taskType", task_type));
    TONY_RETURN_IF_ERROR(SetInt(r, "taskIndex", task_index));
    TONY_RETURN_IF_ERROR(SetString(r, "status", status));
    TONY_RETURN_IF_ERROR(SetMetrics(r, metrics));
    return SetOptionalString(r, "containerDiagnostic",
                             container_diagnostic.substr(0, kMaxDiagnosticBytes));
  });
}

Status TonyHistoryWriter::ApplicationFinished(int finished_tasks, int failed_tasks,
                                              const std::vector<HistoryMetric>& metrics,
                                              int64_t timestamp_ms) {
  return Append(kApplicationFinished, timestamp_ms, [&](avro_value_t* r) -> Status {
    TONY_RETURN_IF_ERROR(SetString(r, "applicationId", options_.app_id));
    TONY_RETURN_IF_ERROR(SetInt(r, "finishedTasks", finished_tasks));
    TONY_RETURN_IF_ERROR(SetInt(r, "failedTasks", failed_tasks));
    return SetMetrics(r, metrics);
  });
}

Result<std::string> TonyHistoryWriter::Finish(int64_t completed_ms, const std::string& status) {
  if (avro_ == nullptr) {
    return FailedPrecondition("the history's events file " + events_path_ + " is closed");
  }
  int closed = avro_file_writer_close(avro_->writer);
  avro_->writer = nullptr;
  avro_.reset();
  if (closed != 0) return AvroError("cannot close", local_events_);
  std::string name = options_.app_id + "-" + std::to_string(started_ms_) + "-" +
                     std::to_string(completed_ms) + "-" + options_.user + "-" + status + ".jhist";
  if (mirror_ != nullptr) return FinishMirror(completed_ms, name);
  std::string final_events = JoinPath(job_dir_, name);
  if (::rename(events_path_.c_str(), final_events.c_str()) != 0) {
    return Unavailable("cannot rename " + events_path_ + " to " + name + ": " +
                       std::strerror(errno));
  }
  events_path_ = final_events;
  TONY_ASSIGN_OR_RETURN(std::string date, FinishedDatePath(completed_ms, options_.timezone));
  if (std::string parent = Parent(options_.finished); !parent.empty() && !IsDirectory(parent)) {
    TONY_RETURN_IF_ERROR(MakeHistoryDir(parent));
  }
  std::string dir = options_.finished;
  TONY_RETURN_IF_ERROR(MakeHistoryDir(dir));
  for (const std::string& part : SplitTrimmed(date, '/')) {
    dir = JoinPath(dir, part);
    TONY_RETURN_IF_ERROR(MakeHistoryDir(dir));
  }
  std::string finished_dir = JoinPath(dir, options_.app_id);
  TONY_RETURN_IF_ERROR(MoveDir(job_dir_, finished_dir));
  job_dir_ = finished_dir;
  events_path_ = JoinPath(finished_dir, name);
  return events_path_;
}

}  // namespace tony::history
