// The coordinator at scale (issue 14): the real coordinator shell (coordinator/coordinator.h) with
// a FakeEngine (engine/fake_engine.h) as its cluster, in a child process of its own (this binary
// re-executed with --serve), and N simulated executors as real gRPC clients in this process: one
// TCP connection each by default, as N `tony executor` processes would have, driven
// asynchronously by gRPC's callback API. A benchmark, not a test: it prints figures and fails
// only when the job it drives goes wrong.
//
// For each N it measures, from this process:
//  - registration: N-1 executors register and each long-polls GetClusterSpec and heartbeats from
//    then on (what `tony executor` does); the time until all N-1 registrations are answered, and
//    the coordinator's CPU meanwhile;
//  - spec: 2 s later (every long-poll parked), the last executor registers; the time from
//    sending that registration to the last of the N specs (each holding all N addresses) received;
//  - heartbeats: every executor beats at the job's default interval (JobSpec's
//    heartbeat_interval_ms), spread evenly over it, with the two metrics the executor sends, and
//    none while its last one is unanswered; the rate answered over a window and the coordinator's
//    CPU over it (utime+stime of all its threads, /proc/<pid>/stat), as a share of one core and
//    per heartbeat;
//  - status: GetJobStatus of the whole job (what `tony submit` follows), and reading status.json
//    (what `tony status` reads on the local engine), while the heartbeats go on; and, in this
//    process, writing that status.json again (history::WriteJobStatus: what the coordinator does
//    at every visible change; the same JSON encoding answers a YARN `tony status`, through the
//    RM's proxy to the AM's status endpoint);
//  - memory: the coordinator's VmRSS and VmHWM (/proc/<pid>/status) at the end.
//
// Usage: coordinator_scale [--tasks 1000,2000,5000,10000] [--heartbeat-seconds 10]
//                          [--connections C] [--status-calls 5]
// --connections C shares C connections among the executors (0, the default: one each).
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "coordinator/coordinator.h"
#include "engine/fake_engine.h"
#include "history/job_dir.h"
#include "rpc/client.h"

namespace tony::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr char kSecret[] = "coordinator-scale-bench";
constexpr int kRpcTimeoutMs = 600'000;
constexpr int kSpecWaitMs = 30'000;  // the coordinator's longest long-poll (kMaxWaitMs)

double MsSince(SteadyClock::time_point t) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - t).count();
}

JobSpec Workers(int n) {
  JobSpec spec;
  spec.framework = "generic";
  RoleSpec worker;
  worker.name = "worker";
  worker.instances = n;
  worker.memory_mb = 256;
  spec.roles.push_back(worker);
  spec.chief_role = "worker";
  return spec;
}

// --serve N JOB_DIR: the coordinator of an N-worker job; writes its port to stdout once the fake
// engine has launched every container, then runs until killed.
int ServeCoordinator(int n, const std::string& job_dir) {
  int log = ::open((job_dir + "/coordinator.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (log >= 0) ::dup2(log, STDERR_FILENO);
  CoordinatorOptions o;
  o.job_id = "coordinator-scale";
  o.job_dir = job_dir;
  o.secret = kSecret;
  o.tony_binary = "/nonexistent/tony";  // the fake engine runs nothing
  engine::FakeEngine* engine = nullptr;
  Coordinator coordinator(o, Workers(n), [&engine](asio::io_context& io) {
    auto e = std::make_unique<engine::FakeEngine>(io, engine::FakeEngineOptions{});
    engine = e.get();
    return e;
  });
  std::thread run([&coordinator] { coordinator.Run(); });
  bool launched = engine->WaitFor(
      [n](const engine::FakeEngineRecord& r) { return r.launches.size() >= size_t(n); }, 600'000);
  std::cout << (launched ? coordinator.port() : 0) << std::endl;
  run.join();
  return 0;
}

// The coordinator's process, seen from outside.
struct ProcessFigures {
  double cpu_s = 0;  // utime + stime of every thread
  double rss_mb = 0;
  double hwm_mb = 0;
};

ProcessFigures ReadProcess(pid_t pid) {
  ProcessFigures f;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after the command (which may hold spaces) start at state, field 3; utime is 14.
  std::istringstream rest(text.substr(text.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i >= 14) ticks += std::stod(field);
  }
  f.cpu_s = ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) f.rss_mb = std::stod(line.substr(6)) / 1024;
    if (line.rfind("VmHWM:", 0) == 0) f.hwm_mb = std::stod(line.substr(6)) / 1024;
  }
  return f;
}

// Counts answers across gRPC's callback threads; the bench's thread waits on it.
class Counter {
 public:
  void Add(bool ok, double at_ms = 0) {
    std::lock_guard<std::mutex> lock(mu_);
    (ok ? ok_ : failed_) += 1;
    last_ms_ = std::max(last_ms_, at_ms);
    changed_.notify_all();
  }
  // False when fewer than `n` answers came within `timeout_ms`.
  bool WaitFor(int64_t n, int64_t timeout_ms) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                             [&] { return ok_ + failed_ >= n; });
  }
  int64_t ok() {
    std::lock_guard<std::mutex> lock(mu_);
    return ok_;
  }
  int64_t failed() {
    std::lock_guard<std::mutex> lock(mu_);
    return failed_;
  }
  double last_ms() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_ms_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  int64_t ok_ = 0;
  int64_t failed_ = 0;
  double last_ms_ = 0;
};

template <typename Request, typename Response>
struct Call {
  grpc::ClientContext context;
  Request request;
  Response response;
  SteadyClock::time_point sent = SteadyClock::now();
};

// N executors' control-plane connections and what each learnt from the coordinator.
class Fleet {
 public:
  Fleet(const std::string& address, int executors, int connections) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(rpc::kMaxResponseBytes);
    args.SetMaxSendMessageSize(rpc::kMaxRequestBytes);
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection per channel
    for (int i = 0; i < connections; ++i) {
      channels_.push_back(
          grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
      stubs_.push_back(rpc::Coordinator::NewStub(channels_.back()));
    }
    spec_generation_.assign(executors, 0);
    registered_ = std::make_unique<std::atomic<bool>[]>(executors);
    beating_ = std::make_unique<std::atomic<bool>[]>(executors);
  }

  // Connects every channel; false when one did not connect within a minute.
  bool Connect() {
    for (auto& c : channels_) c->GetState(/*try_to_connect=*/true);
    auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(60);
    for (auto& c : channels_) {
      if (!c->WaitForConnected(deadline)) return false;
    }
    return true;
  }

  // Registers executor `i`; once registered, it long-polls its spec until it has it.
  void RegisterThenPoll(int i, Counter* registered, Counter* specs, SteadyClock::time_point t0) {
    auto* call = new Call<rpc::RegisterTaskRequest, rpc::RegisterTaskResponse>;
    Prepare(&call->context, kRpcTimeoutMs);
    *call->request.mutable_task() = Ref(i);
    call->request.set_host("127.0.0.1");
    call->request.set_port(10'000 + i);
    StubOf(i).async()->RegisterTask(
        &call->context, &call->request, &call->response,
        [this, call, i, registered, specs, t0](grpc::Status s) {
          if (s.ok()) registered_[i] = true;  // from now on it heartbeats, as the executor does
          registered->Add(s.ok(), MsSince(t0));
          if (!s.ok()) std::cerr << "register " << i << ": " << s.error_message() << "\n";
          delete call;
          if (s.ok()) PollSpec(i, specs, t0);
        });
  }

  // One heartbeat of executor `i`, as `tony executor` sends it (executor/task_run.cc): from its
  // registration on, and none while its last one is unanswered. False when it sent none.
  bool Heartbeat(int i, int64_t beat, Counter* answered, std::vector<double>* latencies,
                 std::mutex* latencies_mu) {
    if (!registered_[i] || beating_[i].exchange(true)) return false;
    auto* call = new Call<rpc::HeartbeatRequest, rpc::HeartbeatResponse>;
    Prepare(&call->context, kRpcTimeoutMs);
    *call->request.mutable_task() = Ref(i);
    call->request.set_spec_generation(spec_generation_[i]);
    rpc::Metric* max = call->request.add_metrics();
    max->set_name("MAX_MEMORY_BYTES");
    max->set_value(64e6);
    rpc::Metric* avg = call->request.add_metrics();
    avg->set_name("AVG_MEMORY_BYTES");
    avg->set_value(32e6 + static_cast<double>(beat));  // the average moves a little each time
    StubOf(i).async()->Heartbeat(
        &call->context, &call->request, &call->response,
        [this, i, call, answered, latencies, latencies_mu](grpc::Status s) {
          beating_[i] = false;
          double ms = MsSince(call->sent);
          if (s.ok() && call->response.stop()) s = grpc::Status(grpc::CANCELLED, "told to stop");
          if (s.ok()) {
            std::lock_guard<std::mutex> lock(*latencies_mu);
            latencies->push_back(ms);
          }
          if (!s.ok()) std::cerr << "heartbeat " << i << ": " << s.error_message() << "\n";
          answered->Add(s.ok());
          delete call;
        });
    return true;
  }

 private:
  rpc::Coordinator::Stub& StubOf(int i) { return *stubs_[i % stubs_.size()]; }

  static void Prepare(grpc::ClientContext* context, int timeout_ms) {
    context->AddMetadata(rpc::kSecretMetadataKey, kSecret);
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
  }

  static rpc::TaskRef Ref(int i) {
    rpc::TaskRef ref;
    ref.set_role("worker");
    ref.set_index(i);
    return ref;
  }

  void PollSpec(int i, Counter* specs, SteadyClock::time_point t0) {
    auto* call = new Call<rpc::GetClusterSpecRequest, rpc::GetClusterSpecResponse>;
    Prepare(&call->context, kSpecWaitMs + kRpcTimeoutMs);
    *call->request.mutable_task() = Ref(i);
    call->request.set_wait_ms(kSpecWaitMs);
    StubOf(i).async()->GetClusterSpec(
        &call->context, &call->request, &call->response,
        [this, call, i, specs, t0](grpc::Status s) {
          bool ready = s.ok() && call->response.ready();
          if (ready) {
            auto it = call->response.cluster().find("worker");
            size_t n = spec_generation_.size();
            if (it == call->response.cluster().end() || size_t(it->second.addresses_size()) != n) {
              std::cerr << "spec of " << i << " does not hold all " << n << " workers\n";
              ready = false;
            }
            spec_generation_[i] = call->response.spec_generation();
          }
          delete call;
          if (s.ok() && !ready) return PollSpec(i, specs, t0);  // expired: ask again
          if (!s.ok()) std::cerr << "spec " << i << ": " << s.error_message() << "\n";
          specs->Add(s.ok(), MsSince(t0));
        });
  }

  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<rpc::Coordinator::Stub>> stubs_;
  std::vector<int64_t> spec_generation_;  // each written by its executor's spec answer only
  std::unique_ptr<std::atomic<bool>[]> registered_;
  std::unique_ptr<std::atomic<bool>[]> beating_;  // a heartbeat is on its way
};

struct Figures {
  int n = 0;
  int connections = 0;
  double register_ms = 0;     // N-1 registrations sent until all answered
  double register_cpu_s = 0;  // the coordinator's CPU meanwhile (with the heartbeats)
  double spec_ms = 0;         // last registration sent -> last spec received
  double spec_cpu_s = 0;      // the coordinator's CPU meanwhile (with the heartbeats)
  double heartbeat_rate = 0;  // answered heartbeats per second over the window
  double heartbeat_core = 0;  // the coordinator's CPU over the window / its length
  double heartbeat_p50_ms = 0;
  double heartbeat_p99_ms = 0;
  double status_rpc_ms = 0;  // median GetJobStatus
  double status_rpc_max_ms = 0;
  double status_kb = 0;
  double status_file_ms = 0;   // median ReadJobStatus of status.json
  double status_write_ms = 0;  // median WriteJobStatus of it: what the coordinator does per change
  double rss_mb = 0;
  double hwm_mb = 0;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

double Median(std::vector<double> v) { return Percentile(std::move(v), 0.5); }

struct Options {
  std::vector<int> tasks{1000, 2000, 5000, 10000};
  int heartbeat_seconds = 10;
  int connections = 0;
  int status_calls = 5;
};

// The child coordinator: started by re-executing this binary (this process may already run
// gRPC's threads, which a fork without exec would not carry).
struct Child {
  pid_t pid = -1;
  int port = 0;
  std::string job_dir;
};

Child StartCoordinator(int n) {
  Child child;
  char dir[] = "/tmp/tony-coordinator-scale-XXXXXX";
  if (::mkdtemp(dir) == nullptr) return child;
  child.job_dir = dir;
  int out[2];
  if (::pipe(out) != 0) return child;
  std::string count = std::to_string(n);
  child.pid = ::fork();
  if (child.pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::dup2(out[1], STDOUT_FILENO);
    ::execl("/proc/self/exe", "coordinator_scale", "--serve", count.c_str(), dir, nullptr);
    ::_exit(127);
  }
  ::close(out[1]);
  FILE* from = ::fdopen(out[0], "r");
  if (from == nullptr || std::fscanf(from, "%d", &child.port) != 1) child.port = 0;
  if (from != nullptr) std::fclose(from);
  return child;
}

// Kills the coordinator; its job dir is kept when the run went wrong.
void StopCoordinator(const Child& child, bool keep_job_dir) {
  if (child.pid > 0) {
    ::kill(child.pid, SIGKILL);
    ::waitpid(child.pid, nullptr, 0);
  }
  std::error_code ec;
  if (!child.job_dir.empty() && !keep_job_dir) std::filesystem::remove_all(child.job_dir, ec);
}

// The executors' heartbeats, from one thread: every registered executor once per interval,
// executor i at offset i/N of it, from Start until Stop.
class HeartbeatLoad {
 public:
  HeartbeatLoad(Fleet& fleet, int n, int64_t interval_ms)
      : fleet_(fleet), n_(n), interval_ms_(interval_ms) {}
  ~HeartbeatLoad() { Stop(); }

  void Start() {
    driver_ = std::thread([this] { Drive(); });
  }
  // Stops sending and waits (bounded) for every answer; false when one failed or never came.
  bool Stop() {
    if (!driver_.joinable()) return true;
    stop_ = true;
    driver_.join();
    bool all = answered_.WaitFor(sent_.load(), kRpcTimeoutMs);
    if (answered_.failed() > 0) std::cerr << answered_.failed() << " heartbeats failed\n";
    return all && answered_.failed() == 0;
  }
  int64_t answered() { return answered_.ok(); }
  // The latencies since the last call, and forgets them.
  std::vector<double> TakeLatencies() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(latencies_, {});
  }

 private:
  void Drive() {
    auto start = SteadyClock::now();
    for (int64_t beat = 0; !stop_.load(); ++beat) {
      auto due = start + std::chrono::microseconds(beat * interval_ms_ * 1000 / n_);
      while (due > SteadyClock::now() && !stop_.load()) {
        std::this_thread::sleep_until(
            std::min(due, SteadyClock::now() + std::chrono::milliseconds(5)));
      }
      if (fleet_.Heartbeat(static_cast<int>(beat % n_), beat, &answered_, &latencies_, &mu_)) {
        ++sent_;
      }
    }
  }

  Fleet& fleet_;
  const int n_;
  const int64_t interval_ms_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> sent_{0};
  Counter answered_;
  std::mutex mu_;
  std::vector<double> latencies_;  // guarded by mu_
  std::thread driver_;
};

// Registration and the spec's release; false when the job did not get there.
bool RegisterAll(Fleet& fleet, const Child& child, Figures* f) {
  int n = f->n;
  Counter registered;
  Counter specs;
  ProcessFigures before = ReadProcess(child.pid);
  auto t0 = SteadyClock::now();
  for (int i = 0; i + 1 < n; ++i) fleet.RegisterThenPoll(i, &registered, &specs, t0);
  if (!registered.WaitFor(n - 1, kRpcTimeoutMs) || registered.failed() > 0) return false;
  f->register_ms = registered.last_ms();
  f->register_cpu_s = ReadProcess(child.pid).cpu_s - before.cpu_s;
  // Each executor sends its long-poll as its registration is answered: 2 s parks them all.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  if (specs.ok() + specs.failed() > 0) {
    std::cerr << "a spec came before the last registration\n";
    return false;
  }
  before = ReadProcess(child.pid);
  auto last = SteadyClock::now();
  fleet.RegisterThenPoll(n - 1, &registered, &specs, last);
  if (!specs.WaitFor(n, kRpcTimeoutMs) || specs.failed() > 0) return false;
  f->spec_ms = MsSince(last);
  f->spec_cpu_s = ReadProcess(child.pid).cpu_s - before.cpu_s;
  return true;
}

// Heartbeats over a window after a warm-up, then the status calls while they go on.
bool MeasureHeartbeatsAndStatus(HeartbeatLoad& load, const Child& child, const Options& options,
                                Figures* f) {
  std::this_thread::sleep_for(std::chrono::seconds(2));  // warm-up: every executor beat twice
  ProcessFigures before = ReadProcess(child.pid);
  int64_t answered_before = load.answered();
  (void)load.TakeLatencies();
  auto window = SteadyClock::now();
  std::this_thread::sleep_for(std::chrono::seconds(options.heartbeat_seconds));
  double window_s = MsSince(window) / 1000;
  f->heartbeat_core = (ReadProcess(child.pid).cpu_s - before.cpu_s) / window_s;
  f->heartbeat_rate = static_cast<double>(load.answered() - answered_before) / window_s;
  std::vector<double> latencies = load.TakeLatencies();
  f->heartbeat_p50_ms = Percentile(latencies, 0.5);
  f->heartbeat_p99_ms = Percentile(latencies, 0.99);
  rpc::CoordinatorClient client("127.0.0.1:" + std::to_string(child.port), kSecret);
  std::vector<double> rpc_ms;
  std::vector<double> file_ms;
  std::vector<double> write_ms;
  const std::string scratch = child.job_dir + "/scratch";
  std::error_code ec;
  std::filesystem::create_directories(scratch, ec);
  bool ok = true;
  for (int i = 0; i < options.status_calls && ok; ++i) {
    rpc::GetJobStatusRequest req;
    req.set_after_version(-1);
    auto t = SteadyClock::now();
    auto status = client.GetJobStatus(req, 60'000);
    rpc_ms.push_back(MsSince(t));
    ok = status.ok() && status->tasks_size() == f->n;
    if (ok) f->status_kb = static_cast<double>(status->ByteSizeLong()) / 1024;
    t = SteadyClock::now();
    auto written = history::ReadJobStatus(history::JobPaths(child.job_dir));
    file_ms.push_back(MsSince(t));
    ok = ok && written.ok() && written->tasks_size() == f->n;
    if (!ok) break;
    t = SteadyClock::now();
    ok = history::WriteJobStatus(history::JobPaths(scratch), *written).ok();
    write_ms.push_back(MsSince(t));
  }
  f->status_rpc_ms = Median(rpc_ms);
  f->status_rpc_max_ms = *std::max_element(rpc_ms.begin(), rpc_ms.end());
  f->status_file_ms = Median(file_ms);
  f->status_write_ms = Median(write_ms);
  ProcessFigures end = ReadProcess(child.pid);
  f->rss_mb = end.rss_mb;
  f->hwm_mb = end.hwm_mb;
  return ok;
}

void PrintFigures(const Figures& f) {
  std::printf(
      "N=%-6d conns=%-6d register %8.0f ms (coordinator CPU %6.2f s) | spec %7.1f ms (CPU %5.2f "
      "s) | heartbeats %7.0f/s, coordinator %5.1f%% of a core, %5.1f us CPU each, p50 %6.2f ms "
      "p99 %7.2f ms | status RPC %7.1f ms (max %7.1f, %6.0f KB), status.json read %6.1f ms, write "
      "%6.1f ms | RSS %6.1f MB (HWM %6.1f)\n",
      f.n, f.connections, f.register_ms, f.register_cpu_s, f.spec_ms, f.spec_cpu_s,
      f.heartbeat_rate, 100 * f.heartbeat_core,
      f.heartbeat_rate > 0 ? 1e6 * f.heartbeat_core / f.heartbeat_rate : 0, f.heartbeat_p50_ms,
      f.heartbeat_p99_ms, f.status_rpc_ms, f.status_rpc_max_ms, f.status_kb, f.status_file_ms,
      f.status_write_ms, f.rss_mb, f.hwm_mb);
  std::fflush(stdout);
}

// How each figure grows from one N to the next: log(f2/f1) / log(N2/N1); 1 is linear.
void PrintGrowth(const std::vector<Figures>& all) {
  if (all.size() < 2) return;
  struct Column {
    const char* name;
    double Figures::*field;
  };
  const Column columns[] = {{"register", &Figures::register_ms},
                            {"register CPU", &Figures::register_cpu_s},
                            {"spec", &Figures::spec_ms},
                            {"spec CPU", &Figures::spec_cpu_s},
                            {"heartbeat CPU", &Figures::heartbeat_core},
                            {"status RPC", &Figures::status_rpc_ms},
                            {"status read", &Figures::status_file_ms},
                            {"status write", &Figures::status_write_ms},
                            {"RSS", &Figures::rss_mb}};
  std::printf("\nGrowth exponent from one N to the next (1 = linear, 2 = quadratic)\n%-13s",
              "figure");
  for (size_t i = 1; i < all.size(); ++i) std::printf("  %5d->%-5d", all[i - 1].n, all[i].n);
  std::printf("\n");
  for (const Column& c : columns) {
    std::printf("%-13s", c.name);
    for (size_t i = 1; i < all.size(); ++i) {
      double a = all[i - 1].*c.field;
      double b = all[i].*c.field;
      double e = a > 0 && b > 0 ? std::log(b / a) / std::log(double(all[i].n) / all[i - 1].n) : 0;
      std::printf("  %11.2f", e);
    }
    std::printf("\n");
  }
}

int Bench(const Options& options) {
  std::vector<Figures> all;
  for (int n : options.tasks) {
    Figures f;
    f.n = n;
    f.connections = options.connections > 0 ? std::min(options.connections, n) : n;
    Child child = StartCoordinator(n);
    bool ok = child.port > 0;
    if (!ok) std::cerr << "N=" << n << ": the coordinator did not start\n";
    {
      Fleet fleet("127.0.0.1:" + std::to_string(child.port), n, f.connections);
      HeartbeatLoad load(fleet, n, Workers(n).heartbeat_interval_ms);
      ok = ok && fleet.Connect();
      if (ok) load.Start();
      ok = ok && RegisterAll(fleet, child, &f);
      ok = ok && MeasureHeartbeatsAndStatus(load, child, options, &f);
      ok = load.Stop() && ok;
      StopCoordinator(child, !ok);
    }
    if (!ok) {
      std::cerr << "N=" << n << ": the run went wrong; its coordinator's log is in "
                << child.job_dir << "/coordinator.log\n";
      return 1;
    }
    PrintFigures(f);
    all.push_back(f);
  }
  PrintGrowth(all);
  return 0;
}

std::vector<int> ParseList(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::stoi(item));
  return out;
}

}  // namespace
}  // namespace tony::bench

int main(int argc, char** argv) {
  using tony::bench::Options;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 3 && args[0] == "--serve") {
    return tony::bench::ServeCoordinator(std::stoi(args[1]), args[2]);
  }
  Options options;
  for (size_t i = 0; i + 1 < args.size(); i += 2) {
    if (args[i] == "--tasks") {
      options.tasks = tony::bench::ParseList(args[i + 1]);
    } else if (args[i] == "--heartbeat-seconds") {
      options.heartbeat_seconds = std::stoi(args[i + 1]);
    } else if (args[i] == "--connections") {
      options.connections = std::stoi(args[i + 1]);
    } else if (args[i] == "--status-calls") {
      options.status_calls = std::stoi(args[i + 1]);
    } else {
      std::cerr << "unknown flag " << args[i] << "\n";
      return 2;
    }
  }
  if (args.size() % 2 != 0) {
    std::cerr << "usage: coordinator_scale [--tasks 1000,2000,5000,10000] [--heartbeat-seconds "
                 "10] [--connections C] [--status-calls 5]\n";
    return 2;
  }
  return tony::bench::Bench(options);
}
