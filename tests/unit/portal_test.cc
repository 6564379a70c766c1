// `tony portal`'s pages (portal/pages.h) from job records on disk (portal/job_records.h): what a
// job wrote is escaped, jobs are found by listed id only, and a log link reaches only the files
// the record names.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/files.h"
#include "common/process.h"
#include "history/job_dir.h"
#include "history/tony_history.h"
#include "portal/charts.h"
#include "portal/html.h"
#include "portal/job_records.h"
#include "portal/pages.h"

namespace tony::portal {
namespace {

namespace fs = std::filesystem;

constexpr char kEvil[] = "<script>alert('x')</script>&\"";

class PortalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = MakeTempDir(fs::temp_directory_path().string(), "tony-portal-");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    root_ = *dir;
    sources_.jobs_root = root_ + "/jobs";
    sources_.history = root_ + "/history";
  }
  void TearDown() override { fs::remove_all(root_); }

  // A local job of two workers, worker:1 on its second attempt, named and messaged `kEvil`.
  history::JobPaths WriteJob(const std::string& id) {
    history::JobPaths paths(sources_.jobs_root + "/" + id);
    EXPECT_TRUE(MakeDirs(paths.root + "/tasks/worker-1/attempt-1").ok());
    EXPECT_TRUE(WriteFileAtomic(paths.FinalConf(),
                                "<configuration><property><name>tony.application.name</name>"
                                "<value>&lt;script&gt;alert('x')&lt;/script&gt;&amp;&quot;"
                                "</value></property></configuration>")
                    .ok());
    rpc::JobStatus status;
    status.set_job_id(id);
    status.set_phase(rpc::FINISHED);
    status.set_final_status(rpc::FAILED);
    status.set_message(kEvil);
    status.set_start_wall_ms(1'700'000'000'000);
    status.set_end_wall_ms(1'700'000'061'000);
    for (int i = 0; i < 2; ++i) {
      auto* t = status.add_tasks();
      t->set_role("worker");
      t->set_index(i);
      t->set_state(i == 0 ? "SUCCEEDED" : "FAILED");
      t->set_attempt(i);
      t->set_log_dir(paths.TaskAttemptDir("worker", i, i));
      if (i == 1) {
        t->set_exit_code(3);
        auto* past = t->add_past_attempts();
        past->set_attempt(0);
        past->set_state("FAILED");
        past->set_log_dir(paths.TaskAttemptDir("worker", 1, 0));
      }
    }
    EXPECT_TRUE(history::WriteJobStatus(paths, status).ok());
    EXPECT_TRUE(
        history::AppendEvent(paths, history::JobEndLine(1'700'000'061'000, rpc::FAILED, kEvil))
            .ok());
    EXPECT_TRUE(WriteFileAtomic(paths.TaskAttemptDir("worker", 1, 1) + "/stderr", kEvil).ok());
    return paths;
  }

  std::string root_;
  PortalSources sources_;
};

TEST(PortalHtmlTest, EscapesAndEncodes) {
  EXPECT_EQ(Escape(kEvil), "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;");
  EXPECT_EQ(UrlEncode("worker:0 a/b?&"), "worker%3A0%20a%2Fb%3F%26");
  EXPECT_EQ(Duration(1000, 3'723'000, 0), "1h2m2s");
  EXPECT_EQ(Duration(0, 5000, 0), "-");
}

TEST_F(PortalTest, PagesShowTheJobWithEverythingItWroteEscaped) {
  WriteJob("tony-1");
  std::vector<JobSummary> jobs = ListJobs(sources_);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].state, "FAILED");
  EXPECT_EQ(jobs[0].tasks, 2);
  EXPECT_EQ(jobs[0].name, kEvil);
  auto job = ReadJob(sources_, "tony-1");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  for (const std::string& page : {JobsPage(jobs, "", 0), JobPage(*job, 0, 5), ConfigPage(*job)}) {
    EXPECT_EQ(page.find("<script>"), std::string::npos) << page;
    EXPECT_NE(page.find("&lt;script&gt;"), std::string::npos) << page;
  }
  std::string page = JobPage(*job, 0, 5);
  EXPECT_NE(page.find("<td>worker:1</td><td class=\"state bad\">FAILED</td><td>1</td>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("exit 3"), std::string::npos) << page;
  EXPECT_NE(page.find("worker:1 (earlier)"), std::string::npos) << page;
  EXPECT_EQ(page.find("http-equiv=\"refresh\""), std::string::npos) << "an ended job reloads";
  EXPECT_NE(JobsJson(jobs, 0).find("\"job_id\": \"tony-1\""), std::string::npos);
}

TEST_F(PortalTest, ARunningJobWhoseCoordinatorIsGoneIsUnknownNotRunning) {
  history::JobPaths paths = WriteJob("tony-1");
  rpc::JobStatus status = *history::ReadJobStatus(paths);
  status.set_phase(rpc::RUNNING);
  status.set_final_status(rpc::UNDECIDED);
  status.set_engine("local");
  ASSERT_TRUE(history::WriteJobStatus(paths, status).ok());
  ASSERT_TRUE(
      history::WriteAmInfo(paths, {"127.0.0.1", 1, ::getpid(), ProcessStartId(::getpid())}).ok());
  EXPECT_EQ(ListJobs(sources_)[0].state, "RUNNING");
  EXPECT_TRUE(ListJobs(sources_)[0].running);
  // The same pid with another start id: the pid was reused, the coordinator is gone.
  ASSERT_TRUE(history::WriteAmInfo(paths, {"127.0.0.1", 1, ::getpid(), "gone"}).ok());
  auto job = ReadJob(sources_, "tony-1");
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->summary.state, "UNKNOWN");
  EXPECT_FALSE(job->summary.running);
  std::string page = JobPage(*job, 0, 5);
  EXPECT_NE(page.find("is gone without recording the job&#39;s end"), std::string::npos) << page;
  EXPECT_EQ(page.find("http-equiv=\"refresh\""), std::string::npos) << page;
}

TEST_F(PortalTest, FilterMatchesEveryWordAnywhere) {
  WriteJob("tony-1");
  JobSummary job = ListJobs(sources_)[0];
  EXPECT_TRUE(Matches(job, ""));
  EXPECT_TRUE(Matches(job, "failed TONY-1"));
  EXPECT_FALSE(Matches(job, "failed tony-2"));
}

TEST_F(PortalTest, JobsAreFoundByListedIdOnly) {
  WriteJob("tony-1");
  EXPECT_TRUE(ReadJob(sources_, "tony-1").ok());
  for (const std::string& id :
       std::vector<std::string>{"tony", "..", ".", "../jobs/tony-1", root_ + "/jobs/tony-1", ""}) {
    auto job = ReadJob(sources_, id);
    EXPECT_EQ(job.status().code(), StatusCode::kNotFound) << id;
  }
}

TEST_F(PortalTest, LogFilesAreOnlyThoseTheRecordNames) {
  history::JobPaths paths = WriteJob("tony-1");
  auto job = ReadJob(sources_, "tony-1");
  ASSERT_TRUE(job.ok());
  auto current = LogFile(*job, "worker:1", 1, "stderr");
  ASSERT_TRUE(current.ok()) << current.status().ToString();
  EXPECT_EQ(*current, paths.TaskAttemptDir("worker", 1, 1) + "/stderr");
  auto past = LogFile(*job, "worker:1", 0, "stdout");
  ASSERT_TRUE(past.ok()) << past.status().ToString();
  EXPECT_EQ(*past, paths.TaskAttemptDir("worker", 1, 0) + "/stdout");
  EXPECT_FALSE(LogFile(*job, "worker:1", 1, "../../tony-final.xml").ok());
  EXPECT_FALSE(LogFile(*job, "worker:2", 0, "stdout").ok());
  EXPECT_FALSE(LogFile(*job, "worker:0", 5, "stdout").ok());
  EXPECT_FALSE(LogFile(*job, "am", 0, "am.log").ok()) << "this job has no am.log";
}

TEST_F(PortalTest, TonyHistoryJobsAreListedFromTheirFileNames) {
  std::string app = sources_.history + "/finished/2026/01/02/application_1_0002";
  ASSERT_TRUE(MakeDirs(app).ok());
  ASSERT_TRUE(
      WriteFileAtomic(app + "/application_1_0002-1000-2000-alice-KILLED.jhist", "Obj").ok());
  std::string running = sources_.history + "/intermediate/application_1_0003";
  ASSERT_TRUE(MakeDirs(running).ok());
  ASSERT_TRUE(
      WriteFileAtomic(running + "/application_1_0003-3000-bob.jhist.inprogress", "Obj").ok());
  // A local job's own history is listed once, as the local job.
  WriteJob("tony-1");
  std::string own = sources_.history + "/intermediate/" + "tony_1";
  ASSERT_TRUE(MakeDirs(own).ok());
  ASSERT_TRUE(WriteFileAtomic(own + "/tony_1-3000-bob.jhist.inprogress", "Obj").ok());
  std::vector<JobSummary> jobs = ListJobs(sources_);
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].id, "tony-1");  // newest first
  EXPECT_EQ(jobs[1].id, "application_1_0003");
  EXPECT_EQ(jobs[1].state, "RUNNING");
  EXPECT_EQ(jobs[1].user, "bob");
  EXPECT_EQ(jobs[2].id, "application_1_0002");
  EXPECT_EQ(jobs[2].state, "KILLED");
  EXPECT_EQ(jobs[2].end_ms, 2000);
  auto job = ReadJob(sources_, "application_1_0002");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_NE(JobPage(*job, 0, 5).find("known only from its TonY history"), std::string::npos);
}

TEST_F(PortalTest, TonyHistoryEventsAreReadWhileTheJobRunsAndAfter) {
  history::TonyHistoryOptions options;
  options.intermediate = sources_.history + "/intermediate";
  options.finished = sources_.history + "/finished";
  options.app_id = "application_1_0007";
  options.user = "alice";
  options.host = "am-host";
  options.final_conf = root_ + "/tony-final.xml";
  ASSERT_TRUE(WriteFileAtomic(options.final_conf, "<configuration/>").ok());
  auto writer = history::TonyHistoryWriter::Start(options, 1'000);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->ApplicationInited(1, 1'000).ok());
  ASSERT_TRUE((*writer)->TaskStarted("worker", 0, "node-1", "container_1", 2'000).ok());
  auto running = ReadJob(sources_, "application_1_0007");
  ASSERT_TRUE(running.ok()) << running.status().ToString();
  EXPECT_EQ(running->summary.state, "RUNNING");
  ASSERT_EQ(running->events.size(), 2u);
  EXPECT_EQ(running->events[1].time_ms, 2'000);
  ASSERT_TRUE((*writer)
                  ->TaskFinished("worker", 0, "FAILED", {{"MAX_MEMORY_BYTES", 5e8}}, "<oom>", 3'000)
                  .ok());
  ASSERT_TRUE((*writer)->ApplicationFinished(0, 1, {}, 4'000).ok());
  ASSERT_TRUE((*writer)->Finish(4'000, "FAILED").ok());
  auto job = ReadJob(sources_, "application_1_0007");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->summary.state, "FAILED");
  ASSERT_EQ(job->events.size(), 4u);
  using Fields = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(job->events[0].fields, (Fields{{"job", "APPLICATION_INITED"},
                                           {"applicationId", "application_1_0007"},
                                           {"numTasks", "1"},
                                           {"host", "am-host"}}));
  EXPECT_EQ(job->events[1].fields, (Fields{{"task", "worker:0"},
                                           {"state", "STARTED"},
                                           {"host", "node-1"},
                                           {"containerID", "container_1"}}));
  EXPECT_EQ(job->events[2].fields, (Fields{{"task", "worker:0"},
                                           {"state", "FAILED"},
                                           {"metrics", "MAX_MEMORY_BYTES=500000000"},
                                           {"containerDiagnostic", "<oom>"}}));
  std::string page = JobPage(*job, 0, 5);
  EXPECT_NE(page.find("&lt;oom&gt;"), std::string::npos) << page;
  EXPECT_EQ(page.find("<oom>"), std::string::npos) << page;
}

TEST(PortalChartTest, MemoryBarsCarryEachTasksValuesAndItsRolesLimit) {
  JobRecord job;
  job.status.emplace();
  job.config = {{"tony.worker.memory", "1g"}};
  for (int i = 0; i < 3; ++i) {
    auto* t = job.status->add_tasks();
    t->set_role(i < 2 ? "worker" : "ps<x>");
    t->set_index(i);
    if (i == 1) continue;  // no sample yet: no bar
    auto* max = t->add_metrics();
    max->set_name("MAX_MEMORY_BYTES");
    max->set_value(256.0 * (1 << 20));
    auto* avg = t->add_metrics();
    avg->set_name("AVG_MEMORY_BYTES");
    avg->set_value(128.0 * (1 << 20));
  }
  std::string svg = MemoryChart(job);
  EXPECT_NE(
      svg.find("<rect class=\"metric max\" data-task=\"worker:0\" data-value=\"268435456.0\""),
      std::string::npos)
      << svg;
  EXPECT_NE(svg.find("data-task=\"worker:0\" data-value=\"1073741824.0\""), std::string::npos)
      << "worker's limit line: " << svg;
  EXPECT_NE(svg.find("256 MiB of 1024 MiB"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("worker:1"), std::string::npos) << svg;
  EXPECT_NE(svg.find("data-task=\"ps&lt;x&gt;:2\""), std::string::npos) << svg;
  EXPECT_EQ(svg.find("<x>"), std::string::npos) << svg;
  job.status->mutable_tasks(0)->clear_metrics();
  job.status->mutable_tasks(2)->clear_metrics();
  EXPECT_EQ(MemoryChart(job), "");
}

TEST(PortalChartTest, StartupBarIsTheTimeUntilTheLastTaskReachedEachStage) {
  JobRecord job;
  job.status.emplace();
  job.status->set_start_wall_ms(1'000);
  for (int i = 0; i < 2; ++i) {
    auto* t = job.status->add_tasks();
    t->set_role("worker");
    t->set_index(i);
  }
  auto event = [&](int64_t ms, const std::string& task, const std::string& attempt,
                   const std::string& state) {
    job.events.push_back({ms, {{"task", task}, {"attempt", attempt}, {"state", state}}});
  };
  event(1'100, "worker:0", "0", "ALLOCATED");
  EXPECT_EQ(StartupChart(job), "") << "worker:1 has no container yet";
  event(1'150, "worker:1", "0", "ALLOCATED");
  event(1'400, "worker:1", "0", "REGISTERED");
  event(1'300, "worker:0", "0", "REGISTERED");
  event(1'450, "worker:0", "0", "RUNNING");
  event(1'500, "worker:1", "0", "RUNNING");
  event(9'000, "worker:1", "1", "RUNNING");  // a restart is not start-up
  std::string svg = StartupChart(job);
  EXPECT_NE(svg.find("data-stage=\"containers allocated\" data-ms=\"150\""), std::string::npos)
      << svg;
  EXPECT_NE(svg.find("data-stage=\"executors registered\" data-ms=\"250\""), std::string::npos)
      << svg;
  EXPECT_NE(svg.find("data-stage=\"user processes running\" data-ms=\"100\""), std::string::npos)
      << svg;
  EXPECT_NE(svg.find(">500 ms</text>"), std::string::npos) << svg;
}

}  // namespace
}  // namespace tony::portal
