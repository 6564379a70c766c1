// In-process tests of the coordinator shell (coordinator/coordinator.h): the real shell and its
// real gRPC server on a loopback port 0, a FakeEngine (engine/fake_engine.h) as the cluster, and
// the real rpc::CoordinatorClient playing the executors and the submitting client, all in this
// process, on simulated time (common/sim_time.h).
//
// No test sleeps. Time moves only when a test calls Advance, which returns once the shell's loop
// has fired every timer due; calls that wait for the shell (RPCs, the fake engine's record, the
// end of Run) are bounded in real time, so a broken shell fails a test instead of hanging it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/sim_time.h"
#include "coordinator/am_journal.h"
#include "coordinator/coordinator.h"
#include "engine/fake_engine.h"
#include "rpc/client.h"
#include "tests/unit/real_wait.h"

namespace tony {
namespace {

constexpr char kSecret[] = "shell-test-secret";
constexpr int kRpcTimeoutMs = 10'000;

JobSpec TwoWorkers() {
  JobSpec spec;
  spec.framework = "generic";
  RoleSpec worker;
  worker.name = "worker";
  worker.instances = 2;
  worker.memory_mb = 256;
  spec.roles.push_back(worker);
  spec.chief_role = "worker";
  return spec;
}

struct ShellOptions {
  JobSpec spec = TwoWorkers();
  engine::FakeEngineOptions engine;
  int64_t linger_ms = 10'000;
  JournalWriter::Write write_journal;       // CoordinatorOptions::write_journal
  std::optional<core::JobJournal> journal;  // CoordinatorOptions::journal
};

// One coordinator shell running on a thread of its own, with its fake engine and clock.
class Shell {
 public:
  explicit Shell(ShellOptions options) : options_(std::move(options)) {}

  ~Shell() {
    if (run_thread_.joinable()) StopAndJoin();
  }

  // Starts Run() and waits until the engine has been started (the server listens by then).
  void Start() {
    char dir[] = "/tmp/tony-shell-test-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    job_dir_ = dir;
    CoordinatorOptions o;
    o.job_id = "shell-test";
    o.job_dir = job_dir_;
    o.secret = kSecret;
    o.tony_binary = "/nonexistent/tony";  // the fake engine runs nothing
    o.linger_ms = options_.linger_ms;
    o.write_journal = options_.write_journal;
    o.journal = options_.journal;
    coordinator_ = std::make_unique<Coordinator>(
        o, options_.spec,
        [this](asio::io_context& io) {
          auto e = std::make_unique<engine::FakeEngine>(io, options_.engine);
          engine_ = e.get();
          return e;
        },
        [this](asio::io_context& io) {
          auto t = std::make_unique<SimTimeSource>(io);
          time_ = t.get();
          return t;
        });
    std::packaged_task<int()> run([this] { return coordinator_->Run(); });
    exit_code_ = run.get_future();
    run_thread_ = std::thread(std::move(run));
    ASSERT_TRUE(engine_->WaitFor([](const auto& r) { return r.started; }));
    client_ = std::make_unique<rpc::CoordinatorClient>(
        "127.0.0.1:" + std::to_string(coordinator_->port()), kSecret);
  }

  engine::FakeEngine& Engine() { return *engine_; }
  SimTimeSource& Time() { return *time_; }
  rpc::CoordinatorClient& Client() { return *client_; }
  int64_t NowMs() const { return time_->clock().MonotonicMs(); }

  void Advance(int64_t ms) { ASSERT_TRUE(time_->Advance(ms, kRealWaitMs)); }
  const std::string& job_dir() const { return job_dir_; }

  // Waits until the engine has launched `n` containers, so that `n` tasks may register.
  void WaitForLaunches(size_t n) {
    ASSERT_TRUE(engine_->WaitFor([n](const auto& r) { return r.launches.size() >= n; }))
        << "launched: " << engine_->Record().launches.size();
  }

  // The container the engine launched `role:index` in.
  std::string ContainerOf(const std::string& role, int index) {
    for (const auto& l : engine_->Record().launches) {
      if (l.role == role && l.index == index) return l.container_id;
    }
    return "";
  }

  // The job's status now (does not wait for a change).
  rpc::JobStatus Status() {
    rpc::GetJobStatusRequest req;
    req.set_after_version(-1);
    auto s = client_->GetJobStatus(req, kRpcTimeoutMs);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : rpc::JobStatus();
  }

  // Long-polls the status until its phase is `phase`; the shell answers each poll on a change
  // (simulated time stands still meanwhile, so a poll never expires by itself).
  rpc::JobStatus WaitForPhase(rpc::JobPhase phase) {
    rpc::JobStatus last = Status();
    for (int polls = 0; last.phase() != phase && polls < 50; ++polls) {
      rpc::GetJobStatusRequest req;
      req.set_after_version(last.version());
      req.set_wait_ms(30'000);
      auto s = client_->GetJobStatus(req, kRpcTimeoutMs);
      if (!s.ok()) {
        ADD_FAILURE() << "waiting for " << phase << ": " << s.status().ToString();
        break;
      }
      last = *s;
    }
    EXPECT_EQ(last.phase(), phase) << last.message();
    return last;
  }

  // Run()'s return value, waiting (bounded) for it.
  int WaitForExit() {
    if (exit_code_.wait_for(std::chrono::milliseconds(kRealWaitMs)) != std::future_status::ready) {
      ADD_FAILURE() << "the coordinator did not exit";
      return -1;
    }
    run_thread_.join();
    return exit_code_.get();
  }

  bool Exited() {
    return exit_code_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }

 private:
  // After a failed assertion: end the job, read its end (which shuts the shell down), join.
  void StopAndJoin() {
    if (!Exited()) {
      rpc::KillJobRequest kill;
      (void)client_->KillJob(kill, 2'000);
      (void)time_->Advance(core::kStopGraceMs + 1, 2'000);
      rpc::GetJobStatusRequest req;
      (void)client_->GetJobStatus(req, 2'000);
    }
    if (exit_code_.wait_for(std::chrono::milliseconds(kRealWaitMs)) != std::future_status::ready) {
      coordinator_->io().stop();
    }
    run_thread_.join();
    coordinator_.reset();
    std::error_code ec;
    std::filesystem::remove_all(job_dir_, ec);
  }

  ShellOptions options_;
  std::string job_dir_;
  std::unique_ptr<Coordinator> coordinator_;
  engine::FakeEngine* engine_ = nullptr;  // owned by coordinator_
  SimTimeSource* time_ = nullptr;         // owned by coordinator_
  std::unique_ptr<rpc::CoordinatorClient> client_;
  std::future<int> exit_code_;
  std::thread run_thread_;
};

rpc::TaskRef Ref(const std::string& role, int index, int attempt = 0) {
  rpc::TaskRef ref;
  ref.set_role(role);
  ref.set_index(index);
  ref.set_attempt(attempt);
  return ref;
}

// The executor's side of the control plane, as `tony executor` uses it.
Status Register(rpc::CoordinatorClient& c, const std::string& role, int index) {
  rpc::RegisterTaskRequest req;
  *req.mutable_task() = Ref(role, index);
  req.set_host("127.0.0.1");
  req.set_port(4000 + index);
  return c.RegisterTask(req, kRpcTimeoutMs);
}

Result<rpc::GetClusterSpecResponse> GetSpec(rpc::CoordinatorClient& c, const std::string& role,
                                            int index, int wait_ms) {
  rpc::GetClusterSpecRequest req;
  *req.mutable_task() = Ref(role, index);
  req.set_wait_ms(wait_ms);
  return c.GetClusterSpec(req, kRpcTimeoutMs);
}

Result<rpc::HeartbeatResponse> Beat(rpc::CoordinatorClient& c, const std::string& role, int index) {
  rpc::HeartbeatRequest req;
  *req.mutable_task() = Ref(role, index);
  return c.Heartbeat(req, kRpcTimeoutMs);
}

Status Report(rpc::CoordinatorClient& c, const std::string& role, int index, int exit_code) {
  rpc::ReportResultRequest req;
  *req.mutable_task() = Ref(role, index);
  req.set_exit_code(exit_code);
  req.set_diagnostics(exit_code == 0 ? "" : "exit " + std::to_string(exit_code));
  return c.ReportResult(req, kRpcTimeoutMs);
}

const rpc::TaskStatus* FindTask(const rpc::JobStatus& s, const std::string& role, int index) {
  for (const auto& t : s.tasks()) {
    if (t.role() == role && t.index() == index) return &t;
  }
  return nullptr;
}

std::string TaskState(const rpc::JobStatus& s, const std::string& role, int index) {
  const rpc::TaskStatus* t = FindTask(s, role, index);
  return t == nullptr ? "(none)" : t->state();
}

// Starts the shell and registers both workers; the gang is released.
void StartAndRegisterBoth(Shell& shell) {
  shell.Start();
  shell.WaitForLaunches(2);
  ASSERT_TRUE(Register(shell.Client(), "worker", 0).ok());
  ASSERT_TRUE(Register(shell.Client(), "worker", 1).ok());
}

TEST(CoordinatorShellTest, PublishesTheSpecOnlyWhenEveryTaskHasRegistered) {
  Shell shell({});
  shell.Start();
  shell.WaitForLaunches(2);
  auto record = shell.Engine().Record();
  ASSERT_EQ(record.requests.size(), 1u);
  EXPECT_EQ(record.requests[0].role, "worker");
  EXPECT_EQ(record.requests[0].count, 2);
  // The executor learns where to call from its container's environment.
  EXPECT_EQ(record.launches[0].env.at("TONY_AM_ADDRESS"), shell.Client().address());
  // No timeout applies before registration, so the shell has no timer armed: no periodic tick.
  EXPECT_EQ(shell.Time().NextWakeMs(), -1);

  ASSERT_TRUE(Register(shell.Client(), "worker", 0).ok());
  auto early = GetSpec(shell.Client(), "worker", 0, /*wait_ms=*/0);
  ASSERT_TRUE(early.ok()) << early.status().ToString();
  EXPECT_FALSE(early->ready()) << "the spec went out before worker:1 registered";
  EXPECT_EQ(TaskState(shell.Status(), "worker", 0), "REGISTERED");

  // worker:0 now long-polls for the spec, as the executor does; worker:1's registration answers.
  auto waiting =
      std::async(std::launch::async, [&] { return GetSpec(shell.Client(), "worker", 0, 30'000); });
  ASSERT_TRUE(Register(shell.Client(), "worker", 1).ok());
  ASSERT_EQ(waiting.wait_for(std::chrono::milliseconds(kRealWaitMs)), std::future_status::ready);
  auto spec = waiting.get();
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_TRUE(spec->ready());
  const auto& workers = spec->cluster().at("worker").addresses();
  ASSERT_EQ(workers.size(), 2);
  EXPECT_EQ(workers[0], "127.0.0.1:4000");
  EXPECT_EQ(workers[1], "127.0.0.1:4001");
  rpc::JobStatus status = shell.Status();
  EXPECT_EQ(TaskState(status, "worker", 0), "RUNNING");
  EXPECT_EQ(TaskState(status, "worker", 1), "RUNNING");
}

TEST(CoordinatorShellTest, ASpecLongPollExpiresAtItsDeadlineInSimulatedTime) {
  Shell shell({});
  shell.Start();
  shell.WaitForLaunches(2);
  ASSERT_TRUE(Register(shell.Client(), "worker", 0).ok());
  int64_t asked_at = shell.NowMs();
  auto waiting =
      std::async(std::launch::async, [&] { return GetSpec(shell.Client(), "worker", 0, 5'000); });
  // The shell's one timer is armed for the poll's deadline (no other deadline is set).
  // The poll is on its way to the loop; each look is a round trip to it, bounded in real time.
  auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(kRealWaitMs);
  while (shell.Time().NextWakeMs() != asked_at + 5'000 &&
         std::chrono::steady_clock::now() < give_up) {
  }
  ASSERT_EQ(shell.Time().NextWakeMs(), asked_at + 5'000);
  shell.Advance(4'999);
  EXPECT_EQ(waiting.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  shell.Advance(1);
  ASSERT_EQ(waiting.wait_for(std::chrono::milliseconds(kRealWaitMs)), std::future_status::ready);
  auto spec = waiting.get();
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_FALSE(spec->ready());
}

TEST(CoordinatorShellTest, DeclaresALostHeartbeatAtTheConfiguredTime) {
  ShellOptions o;
  o.spec.heartbeat_interval_ms = 1'000;
  o.spec.max_missed_heartbeats = 25;  // lost after 25 s without a heartbeat
  Shell shell(o);
  StartAndRegisterBoth(shell);
  ASSERT_EQ(shell.Time().NextWakeMs(), shell.NowMs() + 25'000);
  // worker:1 heartbeats every second; worker:0 never does.
  for (int s = 1; s < 25; ++s) {
    shell.Advance(1'000);
    auto beat = Beat(shell.Client(), "worker", 1);
    ASSERT_TRUE(beat.ok()) << beat.status().ToString();
    EXPECT_FALSE(beat->stop());
  }
  shell.Advance(999);  // 24.999 s since worker:0 registered
  rpc::JobStatus before = shell.Status();
  EXPECT_EQ(before.phase(), rpc::RUNNING);
  EXPECT_EQ(TaskState(before, "worker", 0), "RUNNING");

  shell.Advance(1);  // 25 s
  rpc::JobStatus after = shell.Status();
  EXPECT_EQ(TaskState(after, "worker", 0), "LOST");
  EXPECT_EQ(after.final_status(), rpc::FAILED);
  EXPECT_NE(after.message().find("worker:0 lost: no heartbeat for 25000 ms"), std::string::npos)
      << after.message();
  // The lost task may still run somewhere: the engine is told to stop it, and the other one.
  std::string lost = shell.ContainerOf("worker", 0);
  ASSERT_TRUE(shell.Engine().WaitFor([&](const auto& r) { return r.stopped.size() >= 2; }));
  EXPECT_EQ(shell.Engine().Record().stopped[0], lost);
  auto told = Beat(shell.Client(), "worker", 1);
  EXPECT_TRUE(!told.ok() || told->stop());
  EXPECT_EQ(shell.WaitForExit(), 1);
  EXPECT_EQ(shell.Engine().Record().final_status, rpc::FAILED);
  // The engine gets the job's message and the task summary line (the RM's diagnostics).
  EXPECT_EQ(shell.Engine().Record().final_message,
            after.message() + "\ntasks: LOST worker:0; STOPPED worker:1");
}

// An executor that lost this coordinator for a while (docs/am-restart.md) registers again as
// the same attempt at the same address: taken back while that attempt lives, refused once over.
Status Rejoin(rpc::CoordinatorClient& c, const std::string& role, int index, int port,
              const std::string& container_id = "") {
  rpc::RegisterTaskRequest req;
  *req.mutable_task() = Ref(role, index);
  req.set_host("127.0.0.1");
  req.set_port(port);
  req.set_rejoin(true);
  req.set_container_id(container_id);
  return c.RegisterTask(req, kRpcTimeoutMs);
}

// The journal of an AM attempt that ran both workers (registered as Register does) in
// container_0 and container_1, and died.
core::JobJournal BothRunning(const JobSpec& spec) {
  core::JobStateMachine first(spec);
  (void)first.Handle(core::Start{}, 0);
  for (int i : {0, 1}) {
    (void)first.Handle(core::ContainerAllocated{"container_" + std::to_string(i), "worker", "h"},
                       0);
  }
  for (int i : {0, 1}) {
    (void)first.Handle(core::TaskRegistered{{"worker", i}, 0, "127.0.0.1", 4000 + i}, 0);
  }
  return first.Journal();
}

TEST(CoordinatorShellTest, ALaterAmAttemptRecoversTheJobAndTakesBackTheTasksFromTheirContainers) {
  ShellOptions o;
  o.spec.am_reconnect_window_ms = 120'000;
  o.journal = BothRunning(o.spec);
  o.engine.previous_containers = {"container_0", "container_1"};
  Shell shell(o);
  shell.Start();
  ASSERT_TRUE(Rejoin(shell.Client(), "worker", 0, 4000, "container_0").ok());
  Status moved = Rejoin(shell.Client(), "worker", 1, 4001, "container_9");
  EXPECT_EQ(moved.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(moved.message(),
            "RegisterTask: attempt 0 of worker:1 ran in container container_1, not in container_9");
  ASSERT_TRUE(Rejoin(shell.Client(), "worker", 1, 4001, "container_1").ok());
  rpc::JobStatus status = shell.Status();
  EXPECT_EQ(TaskState(status, "worker", 0), "RUNNING");
  EXPECT_EQ(TaskState(status, "worker", 1), "RUNNING");
  EXPECT_TRUE(shell.Engine().Record().requests.empty());  // nothing started again
  EXPECT_TRUE(shell.Engine().Record().launches.empty());
  auto spec = GetSpec(shell.Client(), "worker", 1, 0);
  ASSERT_TRUE(spec.ok());
  EXPECT_TRUE(spec->ready());
  ASSERT_TRUE(Report(shell.Client(), "worker", 0, 0).ok());
  ASSERT_TRUE(Report(shell.Client(), "worker", 1, 0).ok());
  EXPECT_EQ(shell.WaitForPhase(rpc::FINISHED).final_status(), rpc::SUCCEEDED);
  EXPECT_EQ(shell.WaitForExit(), 0);
}

TEST(CoordinatorShellTest, ARecoveredTaskWhoseContainerIsGoneIsLostAndOneThatDoesNotReturnToo) {
  ShellOptions o;
  o.spec.am_reconnect_window_ms = 120'000;
  o.journal = BothRunning(o.spec);
  o.engine.previous_containers = {"container_0"};
  Shell shell(o);
  shell.Start();
  rpc::JobStatus status = shell.Status();
  EXPECT_EQ(TaskState(status, "worker", 1), "LOST");
  EXPECT_EQ(status.final_status(), rpc::FAILED);  // worker:1 lost; no restart policy
  // worker:0, whose container runs, is stopped for the failed job.
  EXPECT_EQ(shell.Engine().Record().stopped, std::vector<std::string>{"container_0"});
}

TEST(CoordinatorShellTest, ARejoinOfALiveTaskCountsAsItsHeartbeatAndOfAnEndedOneIsRefused) {
  ShellOptions o;
  o.spec.heartbeat_interval_ms = 1'000;
  o.spec.max_missed_heartbeats = 25;
  Shell shell(o);
  StartAndRegisterBoth(shell);
  shell.Advance(20'000);
  ASSERT_TRUE(Beat(shell.Client(), "worker", 1).ok());
  Status back = Rejoin(shell.Client(), "worker", 0, 4000);
  ASSERT_TRUE(back.ok()) << back.ToString();
  shell.Advance(20'000);  // 40 s after its registration, 20 s after its rejoin: not lost
  ASSERT_TRUE(Beat(shell.Client(), "worker", 1).ok());
  EXPECT_EQ(TaskState(shell.Status(), "worker", 0), "RUNNING");
  Status elsewhere = Rejoin(shell.Client(), "worker", 0, 4999);
  EXPECT_EQ(elsewhere.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(elsewhere.message().find("registered at 127.0.0.1:4000"), std::string::npos)
      << elsewhere.ToString();
  shell.Advance(25'000);  // now lost; the job fails
  // Before a client reads the end: that read lets the control plane shut down.
  Status late = Rejoin(shell.Client(), "worker", 0, 4000);
  EXPECT_EQ(late.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(late.message().find("cannot come back: it ended LOST"), std::string::npos)
      << late.ToString();
  EXPECT_EQ(TaskState(shell.Status(), "worker", 0), "LOST");
}

// What the shell's journal writer got last (docs/am-restart.md §3), written on its thread.
class JournalRecord {
 public:
  JournalWriter::Write Writer() {
    return [this](const std::string& bytes) {
      std::lock_guard<std::mutex> lock(mu_);
      last_ = bytes;
      ++writes_;
      changed_.notify_all();
      return Status::Ok();
    };
  }
  // Waits (bounded) for a journal that `done` accepts; the last one written otherwise.
  core::JobJournal WaitFor(const std::function<bool(const core::JobJournal&)>& done) {
    std::unique_lock<std::mutex> lock(mu_);
    core::JobJournal j;
    changed_.wait_for(lock, std::chrono::milliseconds(kRealWaitMs), [&] {
      auto parsed = ParseAmJournal(last_, "journal");
      if (parsed.ok()) j = *parsed;
      return parsed.ok() && done(j);
    });
    return j;
  }
  int writes() {
    std::lock_guard<std::mutex> lock(mu_);
    return writes_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::string last_;
  int writes_ = 0;
};

TEST(CoordinatorShellTest, TheShellJournalsEveryChangeAndNothingAfterTheJobsEnd) {
  JournalRecord record;
  ShellOptions o;
  o.write_journal = record.Writer();
  Shell shell(o);
  StartAndRegisterBoth(shell);
  core::JobJournal running = record.WaitFor([](const core::JobJournal& j) {
    return j.tasks.size() == 2 && j.tasks[0].state == core::TaskState::kRunning &&
           j.tasks[1].state == core::TaskState::kRunning;
  });
  ASSERT_EQ(running.tasks.size(), 2U);
  EXPECT_EQ(running.tasks[1].port, 4001);
  EXPECT_EQ(running.tasks[1].container_id, shell.ContainerOf("worker", 1));
  ASSERT_TRUE(Report(shell.Client(), "worker", 0, 0).ok());
  ASSERT_TRUE(Report(shell.Client(), "worker", 1, 0).ok());
  EXPECT_EQ(shell.WaitForPhase(rpc::FINISHED).final_status(), rpc::SUCCEEDED);
  EXPECT_EQ(shell.WaitForExit(), 0);
  // Closed at the end (before the AM unregisters): what it wrote last may be any journal up to
  // the decision, never one after the end.
  const int writes = record.writes();
  EXPECT_GE(writes, 1);
  EXPECT_NE(record.WaitFor([](const core::JobJournal&) { return true; }).phase,
            core::JobPhase::kFinished);
}

TEST(CoordinatorShellTest, FailsTheJobAtTheApplicationTimeout) {
  ShellOptions o;
  o.spec.application_timeout_ms = 60'000;
  o.spec.heartbeat_interval_ms = 100'000;  // heartbeats are not what this test is about
  Shell shell(o);
  StartAndRegisterBoth(shell);
  int64_t started = shell.NowMs();  // no simulated time has passed since Start
  ASSERT_EQ(shell.Time().NextWakeMs(), started + 60'000);
  shell.Advance(59'999);
  EXPECT_EQ(shell.Status().phase(), rpc::RUNNING);
  shell.Advance(1);
  rpc::JobStatus status = shell.WaitForPhase(rpc::FINISHED);
  EXPECT_EQ(status.final_status(), rpc::FAILED);
  EXPECT_EQ(status.message(), "application timed out after 60000 ms (tony.application.timeout)");
  EXPECT_EQ(shell.WaitForExit(), 1);
  EXPECT_EQ(shell.Engine().Record().stopped.size(), 2u);
  // What the engine was told at shutdown (on YARN: the application's final status).
  EXPECT_EQ(shell.Engine().Record().final_status, rpc::FAILED);
  EXPECT_EQ(shell.Engine().Record().final_message,
            status.message() + "\ntasks: STOPPED worker:0 worker:1");
}

TEST(CoordinatorShellTest, ATaskFailureEndsTheJob) {
  Shell shell({});
  StartAndRegisterBoth(shell);
  ASSERT_TRUE(Report(shell.Client(), "worker", 1, 3).ok());
  rpc::JobStatus status = shell.WaitForPhase(rpc::FINISHED);
  EXPECT_EQ(status.final_status(), rpc::FAILED);
  EXPECT_NE(status.message().find("worker:1"), std::string::npos) << status.message();
  EXPECT_EQ(TaskState(status, "worker", 1), "FAILED");
  // worker:0 was still running: stopped by the coordinator, not failed.
  EXPECT_EQ(TaskState(status, "worker", 0), "STOPPED");
  auto record = shell.Engine().Record();
  ASSERT_EQ(record.stopped.size(), 1u);
  EXPECT_EQ(record.stopped[0], shell.ContainerOf("worker", 0));
  EXPECT_EQ(shell.WaitForExit(), 1);
  EXPECT_EQ(shell.Engine().Record().final_status, rpc::FAILED);
}

TEST(CoordinatorShellTest, ShutsDownAsSoonAsTheClientHasReadTheEnd) {
  Shell shell({});
  StartAndRegisterBoth(shell);
  ASSERT_TRUE(Report(shell.Client(), "worker", 0, 0).ok());
  ASSERT_TRUE(Report(shell.Client(), "worker", 1, 0).ok());
  rpc::JobStatus status = shell.WaitForPhase(rpc::FINISHED);
  EXPECT_EQ(status.final_status(), rpc::SUCCEEDED);
  // No simulated time passes: reading the end is what ends the coordinator, not a tick.
  EXPECT_EQ(shell.WaitForExit(), 0);
  EXPECT_EQ(shell.Engine().Record().shutdowns, 1);
  EXPECT_EQ(shell.Engine().Record().final_status, rpc::SUCCEEDED);
  // The control plane is gone.
  rpc::GetJobStatusRequest req;
  EXPECT_FALSE(shell.Client().GetJobStatus(req, 2'000).ok());
}

TEST(CoordinatorShellTest, LingersForAClientThenShutsDown) {
  ShellOptions o;
  o.linger_ms = 7'000;
  Shell shell(o);
  StartAndRegisterBoth(shell);
  ASSERT_TRUE(Report(shell.Client(), "worker", 0, 0).ok());
  ASSERT_TRUE(Report(shell.Client(), "worker", 1, 0).ok());
  ASSERT_TRUE(shell.Engine().WaitFor([](const auto& r) { return r.shutdowns == 1; }));
  // Nobody has read the end: the coordinator waits linger_ms for a client, and no longer.
  int64_t finished = shell.NowMs();
  ASSERT_EQ(shell.Time().NextWakeMs(), finished + 7'000);
  shell.Advance(6'999);
  EXPECT_FALSE(shell.Exited());
  shell.Advance(1);
  EXPECT_EQ(shell.WaitForExit(), 0);
}

TEST(CoordinatorShellTest, AKillStopsEveryTaskAndEndsTheJobKilled) {
  Shell shell({});
  StartAndRegisterBoth(shell);
  rpc::KillJobRequest kill;
  kill.set_reason("killed by user (test)");
  ASSERT_TRUE(shell.Client().KillJob(kill, kRpcTimeoutMs).ok());
  rpc::JobStatus status = shell.WaitForPhase(rpc::FINISHED);
  EXPECT_EQ(status.final_status(), rpc::KILLED);
  EXPECT_EQ(status.message(), "killed by user (test)");
  EXPECT_EQ(shell.Engine().Record().stopped.size(), 2u);
  EXPECT_EQ(shell.WaitForExit(), 1);
  EXPECT_EQ(shell.Engine().Record().shutdowns, 1);
  EXPECT_EQ(shell.Engine().Record().final_status, rpc::KILLED);
  EXPECT_EQ(shell.Engine().Record().final_message,
            "killed by user (test)\ntasks: STOPPED worker:0 worker:1");
}

TEST(CoordinatorShellTest, RefusesCallsWithoutTheJobSecret) {
  Shell shell({});
  shell.Start();
  rpc::CoordinatorClient stranger(shell.Client().address(), "wrong-secret");
  Status s = Register(stranger, "worker", 0);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated) << s.ToString();
}

TEST(CoordinatorShellTest, EventsOnlyMoveForwardWhenATaskRegistersWhileTheJobStops) {
  ShellOptions options;
  options.engine.complete_on_stop = false;
  Shell shell(options);
  shell.Start();
  shell.WaitForLaunches(2);
  ASSERT_TRUE(Register(shell.Client(), "worker", 0).ok());
  rpc::KillJobRequest kill;
  kill.set_reason("killed by user (Ctrl-C in tony submit)");
  ASSERT_TRUE(shell.Client().KillJob(kill, kRpcTimeoutMs).ok());
  ASSERT_TRUE(Register(shell.Client(), "worker", 1).ok());  // too late: it stays ALLOCATED
  EXPECT_EQ(TaskState(shell.Status(), "worker", 1), "ALLOCATED");
  shell.Advance(core::kStopGraceMs);
  rpc::JobStatus status = shell.WaitForPhase(rpc::FINISHED);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(TaskState(status, "worker", i), "NOT_STARTED") << i;
    EXPECT_EQ(FindTask(status, "worker", i)->end_reason(),
              "killed by user (Ctrl-C in tony submit)");
  }
  std::ifstream events(shell.job_dir() + "/events.jsonl");
  std::vector<std::string> worker1;
  for (std::string line; std::getline(events, line);) {
    if (line.find("\"worker:1\"") == std::string::npos) continue;
    size_t at = line.find("\"state\":\"");
    ASSERT_NE(at, std::string::npos) << line;
    worker1.push_back(line.substr(at + 9, line.find('"', at + 9) - at - 9));
  }
  EXPECT_EQ(worker1, (std::vector<std::string>{"NEW", "ALLOCATED", "NOT_STARTED"}));
}

// The events.jsonl states of `task` ("worker:1"), in order.
std::vector<std::string> EventStates(const Shell& shell, const std::string& task) {
  std::ifstream events(shell.job_dir() + "/events.jsonl");
  std::vector<std::string> states;
  for (std::string line; std::getline(events, line);) {
    if (line.find("\"" + task + "\"") == std::string::npos) continue;
    size_t at = line.find("\"state\":\"");
    if (at == std::string::npos) continue;
    states.push_back(line.substr(at + 9, line.find('"', at + 9) - at - 9));
  }
  return states;
}

Result<rpc::HeartbeatResponse> StalledBeat(rpc::CoordinatorClient& c, const std::string& role,
                                           int index, const std::string& note) {
  rpc::HeartbeatRequest req;
  *req.mutable_task() = Ref(role, index);
  req.set_stalled(!note.empty());
  req.set_stall(note);
  return c.Heartbeat(req, kRpcTimeoutMs);
}

TEST(CoordinatorShellTest, AStalledHeartbeatShowsStalledUntilOneSaysProgressOnWarn) {
  ShellOptions o;
  o.spec.roles[0].stall_timeout_ms = 2'000;
  o.spec.roles[0].on_stall = OnStall::kWarn;
  Shell shell(o);
  StartAndRegisterBoth(shell);
  const std::string note = "no output or progress for 2 s (tony.worker.stall-timeout-ms = 2000)";
  auto beat = StalledBeat(shell.Client(), "worker", 0, note + "\n--- pid 7: python3 t.py\n");
  ASSERT_TRUE(beat.ok()) << beat.status().ToString();
  EXPECT_FALSE(beat->stop());
  rpc::JobStatus status = shell.Status();
  EXPECT_EQ(TaskState(status, "worker", 0), "STALLED");
  EXPECT_EQ(FindTask(status, "worker", 0)->stall(), note + "\n--- pid 7: python3 t.py\n");
  EXPECT_EQ(TaskState(status, "worker", 1), "RUNNING");

  ASSERT_TRUE(Beat(shell.Client(), "worker", 0).ok());  // progress again
  status = shell.Status();
  EXPECT_EQ(TaskState(status, "worker", 0), "RUNNING");
  EXPECT_EQ(FindTask(status, "worker", 0)->stall(), "");
  EXPECT_EQ(EventStates(shell, "worker:0"),
            (std::vector<std::string>{"NEW", "ALLOCATED", "REGISTERED", "RUNNING", "STALLED",
                                      "RUNNING"}));
  std::ifstream events(shell.job_dir() + "/events.jsonl");
  std::string all((std::istreambuf_iterator<char>(events)), std::istreambuf_iterator<char>());
  EXPECT_NE(all.find("\"reason\":\"" + note + "\""), std::string::npos) << all;
}

TEST(CoordinatorShellTest, AStalledHeartbeatStopsTheTaskOnFail) {
  ShellOptions o;
  o.spec.roles[0].stall_timeout_ms = 2'000;
  Shell shell(o);  // on-stall: fail, the default
  StartAndRegisterBoth(shell);
  auto beat = StalledBeat(shell.Client(), "worker", 1, "no output or progress for 2 s");
  ASSERT_TRUE(beat.ok()) << beat.status().ToString();
  EXPECT_TRUE(beat->stop());
  ASSERT_TRUE(shell.Engine().WaitFor([](const auto& r) { return !r.stopped.empty(); }));
  EXPECT_EQ(shell.Engine().Record().stopped[0], shell.ContainerOf("worker", 1));
  rpc::JobStatus status = shell.WaitForPhase(rpc::FINISHED);
  EXPECT_EQ(status.final_status(), rpc::FAILED);
  EXPECT_EQ(TaskState(status, "worker", 1), "FAILED");
  EXPECT_NE(status.message().find("task worker:1 failed: stalled: no output or progress for 2 s"),
            std::string::npos)
      << status.message();
  EXPECT_EQ(shell.WaitForExit(), 1);
}

}  // namespace
}  // namespace tony
