// Unit tests of config/: layered Hadoop XML configuration, the key registry, JobSpec validation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/files.h"
#include "config/configuration.h"
#include "config/job_spec.h"
#include "config/keys.h"
#include "runtime/runtime.h"
#include "tests/unit/config_test_util.h"

namespace tony {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Property(const std::string& name, const std::string& value, bool final = false) {
  return "  <property>\n    <name>" + name + "</name>\n    <value>" + value + "</value>\n" +
         (final ? "    <final>true</final>\n" : "") + "  </property>\n";
}

std::string ConfXml(const std::string& properties) {
  return "<?xml version=\"1.0\"?>\n<configuration>\n" + properties + "</configuration>\n";
}

// ---- Configuration layers ----

TEST_F(ConfigTest, DefaultsComeFromTheRegistry) {
  Configuration conf = Configuration::WithDefaults();
  EXPECT_EQ(conf.GetOr("tony.yarn.queue", ""), "default");
  EXPECT_EQ(conf.GetOr("tony.application.name", ""), "TensorFlowApplication");
  EXPECT_EQ(conf.GetOr("tony.application.fail-on-worker-failure-enabled", ""), "true");
  EXPECT_EQ(conf.GetOr("tony.container.registration.timeout", ""), "-1");
  ASSERT_NE(conf.Find("tony.am.memory"), nullptr);
  EXPECT_EQ(conf.Find("tony.am.memory")->source, "built-in defaults");
  EXPECT_FALSE(conf.Get("tony.worker.instances").has_value());
}

TEST_F(ConfigTest, PrecedenceDefaultsThenConfFileThenSiteThenOverride) {
  std::string job = Write(
      "tony.xml", ConfXml(Property("tony.yarn.queue", "jobq") + Property("tony.am.vcores", "2") +
                          Property("tony.application.name", "mine")));
  std::string site = Write("tony-site.xml", ConfXml(Property("tony.yarn.queue", "siteq") +
                                                    Property("tony.am.vcores", "3")));
  Configuration conf = Configuration::WithDefaults();
  ASSERT_TRUE(conf.AddFile(job).ok());
  ASSERT_TRUE(conf.AddFile(site).ok());
  ASSERT_TRUE(conf.AddOverride("tony.am.vcores=4").ok());

  EXPECT_EQ(conf.GetOr("tony.application.name", ""), "mine");
  EXPECT_EQ(conf.Find("tony.application.name")->source, job);
  EXPECT_EQ(conf.GetOr("tony.yarn.queue", ""), "siteq");
  EXPECT_EQ(conf.Find("tony.yarn.queue")->source, site);
  EXPECT_EQ(conf.GetOr("tony.am.vcores", ""), "4");
  EXPECT_EQ(conf.Find("tony.am.vcores")->source, "--conf");
  EXPECT_EQ(conf.GetOr("tony.am.memory", ""), "2g");
}

TEST_F(ConfigTest, OverrideWinsEvenWhenTheSiteFileIsAddedAfterIt) {
  std::string site = Write("tony-site.xml", ConfXml(Property("tony.yarn.queue", "siteq")));
  Configuration conf = Configuration::WithDefaults();
  ASSERT_TRUE(conf.AddOverride("tony.yarn.queue=mine").ok());
  ASSERT_TRUE(conf.AddFile(site).ok());
  EXPECT_EQ(conf.GetOr("tony.yarn.queue", ""), "mine");
}

TEST_F(ConfigTest, FinalInConfFileBlocksTheSiteFileButNotConf) {
  std::string job = Write("tony.xml", ConfXml(Property("tony.yarn.queue", "jobq", true) +
                                              Property("tony.am.gpus", "1", true)));
  std::string site = Write("tony-site.xml", ConfXml(Property("tony.yarn.queue", "siteq") +
                                                    Property("tony.am.gpus", "0")));
  Configuration conf = Configuration::WithDefaults();
  ASSERT_TRUE(conf.AddFile(job).ok());
  ASSERT_TRUE(conf.AddFile(site).ok());
  EXPECT_EQ(conf.GetOr("tony.yarn.queue", ""), "jobq");
  EXPECT_TRUE(conf.Find("tony.yarn.queue")->final);
  ASSERT_TRUE(conf.AddOverride("tony.am.gpus=2").ok());
  EXPECT_EQ(conf.GetOr("tony.am.gpus", ""), "2");
}

TEST_F(ConfigTest, MultiValueKeysAppendOnConfAndSet) {
  std::string job = Write("tony.xml", ConfXml(Property("tony.containers.envs", "A=1") +
                                              Property("tony.yarn.queue", "q1")));
  Configuration conf = Configuration::WithDefaults();
  ASSERT_TRUE(conf.AddFile(job).ok());
  ASSERT_TRUE(conf.AddOverride("tony.containers.envs=B=2").ok());
  conf.Set("tony.containers.envs", "C=3", "--container_env");
  ASSERT_TRUE(conf.AddOverride("tony.execution.envs=X=1").ok());
  ASSERT_TRUE(conf.AddOverride("tony.execution.envs=Y=2").ok());
  ASSERT_TRUE(conf.AddOverride("tony.containers.resources=hdfs:///a.zip").ok());
  ASSERT_TRUE(conf.AddOverride("tony.containers.resources=b.txt").ok());
  ASSERT_TRUE(conf.AddOverride("tony.yarn.queue=q2").ok());
  ASSERT_TRUE(conf.AddOverride("tony.yarn.queue=q3").ok());

  EXPECT_EQ(conf.GetOr("tony.containers.envs", ""), "A=1,B=2,C=3");
  EXPECT_EQ(conf.GetOr("tony.execution.envs", ""), "X=1,Y=2");
  EXPECT_EQ(conf.GetOr("tony.containers.resources", ""), "hdfs:///a.zip,b.txt");
  EXPECT_EQ(conf.GetOr("tony.yarn.queue", ""), "q3");
  EXPECT_TRUE(IsMultiValueKey("tony.execution.envs"));
  EXPECT_FALSE(IsMultiValueKey("tony.worker.resources"));
}

TEST_F(ConfigTest, FileLayersReplaceMultiValueKeys) {
  Configuration conf = Configuration::WithDefaults();
  ASSERT_TRUE(conf.AddXml(ConfXml(Property("tony.containers.envs", "A=1")), "a.xml").ok());
  ASSERT_TRUE(conf.AddXml(ConfXml(Property("tony.containers.envs", "B=2")), "b.xml").ok());
  EXPECT_EQ(conf.GetOr("tony.containers.envs", ""), "B=2");
}

TEST_F(ConfigTest, OverrideNeedsKeyEqualsValue) {
  Configuration conf;
  Status no_eq = conf.AddOverride("tony.worker.instances");
  EXPECT_EQ(no_eq.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(no_eq.message(), HasSubstr("tony.worker.instances"));
  EXPECT_THAT(no_eq.message(), HasSubstr("key=value"));
  EXPECT_EQ(conf.AddOverride("=3").code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(conf.AddOverride(" tony.a = x=y ").ok());
  EXPECT_EQ(conf.GetOr("tony.a", ""), "x=y");
}

TEST_F(ConfigTest, NonTonyKeysAreKeptSilently) {
  Configuration conf = Runnable();
  ASSERT_TRUE(conf.AddXml(ConfXml(Property("yarn.resourcemanager.address", "rm:8032") +
                                  Property("fs.defaultFS", "hdfs://nn:8020")),
                          "core.xml")
                  .ok());
  EXPECT_EQ(conf.GetOr("fs.defaultFS", ""), "hdfs://nn:8020");
  EXPECT_THAT(UnknownKeyWarnings(conf), IsEmpty());
  EXPECT_TRUE(BuildJobSpec(conf).ok());
}

TEST_F(ConfigTest, MalformedXmlNamesFileAndLine) {
  std::string path = Write("bad.xml",
                           "<?xml version=\"1.0\"?>\n<configuration>\n  <property>\n"
                           "    <name>tony.worker.instances</name>\n    <value>2</vaule>\n"
                           "  </property>\n</configuration>\n");
  Configuration conf;
  Status s = conf.AddFile(path);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(path + ":5: malformed XML: "));
}

// Hadoop's Configuration skips a nameless property with a warning; so does tony, naming the file.
TEST_F(ConfigTest, PropertyWithoutNameIsSkippedWithAWarningNamingFileAndLine) {
  Configuration conf;
  Status s = conf.AddXml(
      "<configuration>\n<property><name>a</name><value>1</value></property>\n"
      "<property>\n  <value>2</value>\n</property>\n"
      "<property><name>b</name><value>3</value></property>\n</configuration>\n",
      "/x/tony.xml");
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(conf.GetOr("a", ""), "1");
  EXPECT_EQ(conf.GetOr("b", ""), "3");
  ASSERT_EQ(conf.warnings().size(), 1u);
  EXPECT_EQ(conf.warnings()[0],
            "/x/tony.xml:3: <property> without a <name> skipped (as Hadoop does)");
}

TEST_F(ConfigTest, WrongRootAndMissingFileAreErrors) {
  Configuration conf;
  Status root = conf.AddXml("<conf>\n</conf>", "f.xml");
  EXPECT_THAT(root.message(), HasSubstr("f.xml:1: expected a <configuration> root element"));
  Status missing = conf.AddFile(dir_ + "/nope.xml");
  EXPECT_FALSE(missing.ok());
  EXPECT_THAT(missing.message(), HasSubstr(dir_ + "/nope.xml"));
}

TEST_F(ConfigTest, AttributeFormAndPropertiesWithoutValue) {
  Configuration conf;
  ASSERT_TRUE(conf.AddXml("<configuration><property name=\"a.b\" value=\"1\" final=\"true\"/>"
                          "<property><name>no.value</name></property></configuration>",
                          "f.xml")
                  .ok());
  EXPECT_EQ(conf.GetOr("a.b", ""), "1");
  EXPECT_TRUE(conf.Find("a.b")->final);
  EXPECT_EQ(conf.Find("no.value"), nullptr);
}

TEST_F(ConfigTest, ToXmlRoundTrips) {
  Configuration conf = Configuration::WithDefaults();
  ASSERT_TRUE(conf.AddXml(ConfXml(Property("tony.yarn.queue", "q", true)), "/u/tony.xml").ok());
  conf.Set("tony.containers.command", "python t.py --a='x' && echo \"<done>\" & true", "--conf");
  conf.Set("tony.execution.envs", "  spaced  ", "--shell_env");
  conf.Set("odd", "line1\nline2", "--conf");
  conf.Set("empty", "", "--conf");
  std::string xml = conf.ToXml();
  EXPECT_THAT(xml, HasSubstr("<source>/u/tony.xml</source>"));
  EXPECT_THAT(xml, HasSubstr("<final>true</final>"));

  Configuration back;
  ASSERT_TRUE(back.AddXml(xml, "tony-final.xml").ok());
  ASSERT_EQ(back.entries().size(), conf.entries().size());
  for (const auto& [key, v] : conf.entries()) {
    const ConfigValue* b = back.Find(key);
    ASSERT_NE(b, nullptr) << key;
    EXPECT_EQ(b->value, v.value) << key;
    EXPECT_EQ(b->final, v.final) << key;
    EXPECT_EQ(b->source, v.source) << key;
  }
}

TEST_F(ConfigTest, GetExpandsVariables) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.history.location", "/h", "--conf");
  EXPECT_EQ(conf.GetOr("tony.history.intermediate", ""), "/h/intermediate");
  conf.Set("a", "${b}-${missing}", "--conf");
  conf.Set("b", "${c}", "--conf");
  conf.Set("c", "C", "--conf");
  EXPECT_EQ(conf.GetOr("a", ""), "C-${missing}");
  conf.Set("self", "x${self}", "--conf");
  EXPECT_THAT(conf.GetOr("self", ""), HasSubstr("${self}"));
  const char* old_user = std::getenv("USER");
  std::string saved = old_user != nullptr ? old_user : "";
  setenv("USER", "alice", 1);
  conf.Set("dir", "/user/${user.name}/x", "--conf");
  EXPECT_EQ(conf.GetOr("dir", ""), "/user/alice/x");
  if (old_user != nullptr) {
    setenv("USER", saved.c_str(), 1);
  } else {
    unsetenv("USER");
  }
  EXPECT_EQ(conf.Find("dir")->value, "/user/${user.name}/x");
}

TEST_F(ConfigTest, GetBoundsValuesThatMultiplyThemselves) {
  // Every round of expansion replaces every reference: without a bound, four references to
  // itself would grow to 4^20 copies (found by fuzz/config_xml_fuzz.cc; it ran out of memory).
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.yarn.queue", "${tony.yarn.queue}${tony.yarn.queue}${tony.yarn.queue}x", "--conf");
  std::string v = conf.GetOr("tony.yarn.queue", "");
  EXPECT_LE(v.size(), 64u * 1024);
  EXPECT_THAT(v, HasSubstr("${tony.yarn.queue}"));
  conf.Set("small", "${c}${c}", "--conf");
  conf.Set("c", "C", "--conf");
  EXPECT_EQ(conf.GetOr("small", ""), "CC");
}

// ---- Memory ----

TEST(MemoryTest, ParsesSizes) {
  EXPECT_EQ(*ParseMemoryMb("2g"), 2048);
  EXPECT_EQ(*ParseMemoryMb("2G"), 2048);
  EXPECT_EQ(*ParseMemoryMb("512m"), 512);
  EXPECT_EQ(*ParseMemoryMb("512M"), 512);
  EXPECT_EQ(*ParseMemoryMb("4096"), 4096);
  EXPECT_EQ(*ParseMemoryMb(" 3g "), 3072);
  EXPECT_EQ(*ParseMemoryMb("1t"), 1024 * 1024);
  EXPECT_EQ(*ParseMemoryMb("2048k"), 2);
  EXPECT_EQ(*ParseMemoryMb("1k"), 1);
  EXPECT_EQ(*ParseMemoryMb("0"), 0);
}

TEST(MemoryTest, RejectsGarbage) {
  for (const char* bad :
       {"", "lots", "-1", "-2g", "1.5g", "g", "2gb", "2 g x", "+2g", "0x10", "99999999999999999999",
        "9223372036854775807t", "4x", "4p", "10s", "4mm", "4b"}) {
    Result<int64_t> r = ParseMemoryMb(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_THAT(r.status().message(), HasSubstr(kMemorySizeForms));
    }
  }
}

// ---- JobSpec ----

TEST_F(JobSpecTest, JobSpecFromDefaults) {
  Result<JobSpec> spec = BuildJobSpec(Runnable());
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->name, "TensorFlowApplication");
  EXPECT_EQ(spec->type, "TONY");
  EXPECT_EQ(spec->queue, "default");
  EXPECT_EQ(spec->framework, "tensorflow");
  EXPECT_EQ(spec->mode, DistributedMode::kGang);
  EXPECT_TRUE(spec->fail_on_worker_failure);
  EXPECT_EQ(spec->registration_timeout_ms, -1);
  EXPECT_EQ(spec->allocation_timeout_ms, -1);
  EXPECT_EQ(spec->heartbeat_interval_ms, 1000);
  EXPECT_EQ(spec->max_missed_heartbeats, 25);
  EXPECT_EQ(spec->error_message_max_depth, 20);
  EXPECT_EQ(spec->am_memory_mb, 2048);
  ASSERT_EQ(spec->roles.size(), 1u);
  const RoleSpec& w = spec->roles[0];
  EXPECT_EQ(w.name, "worker");
  EXPECT_EQ(w.instances, 2);
  EXPECT_EQ(w.memory_mb, 2048);
  EXPECT_EQ(w.vcores, 1);
  EXPECT_EQ(w.gpus, 0);
  EXPECT_EQ(w.nproc_per_task, 1);
  EXPECT_EQ(w.command, "python train.py");
  EXPECT_EQ(spec->chief_role, "worker");
  EXPECT_EQ(spec->chief_index, 0);
}

// Issue 28: TonY's application ACLs by default (VIEW_APP "*", MODIFY_APP " ": the owner only),
// ours by key in YARN's ACL form; anything else is refused naming the key.
TEST_F(JobSpecTest, ApplicationAclsDefaultToTonysAndTakeYarnsAclForm) {
  Result<JobSpec> defaults = BuildJobSpec(Runnable());
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->view_acl, "*");
  EXPECT_EQ(defaults->modify_acl, " ");
  Configuration conf = Runnable();
  ASSERT_TRUE(conf.AddOverride("tony.application.view-acls=alice,bob analysts").ok());
  ASSERT_TRUE(conf.AddOverride("tony.application.modify-acls=alice").ok());
  Result<JobSpec> spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->view_acl, "alice,bob analysts");
  EXPECT_EQ(spec->modify_acl, "alice");
  Configuration bad = Runnable();
  ASSERT_TRUE(bad.AddOverride("tony.application.modify-acls=alice bob carol").ok());
  Result<JobSpec> refused = BuildJobSpec(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(),
              HasSubstr("tony.application.modify-acls = \"alice bob carol\" (from --conf): "
                        "expected YARN's ACL form \"user1,user2 group1,group2\""));
}

TEST_F(JobSpecTest, JobSpecReadsEveryField) {
  Configuration conf = Runnable();
  for (const char* kv : {"tony.application.name=n",
                         "tony.application.tags=a, b",
                         "tony.application.framework=PyTorch",
                         "tony.application.distributed-mode=fcfs",
                         "tony.worker.memory=3g",
                         "tony.worker.vcores=4",
                         "tony.worker.gpus=2",
                         "tony.worker.nproc-per-task=8",
                         "tony.worker.command=python w.py",
                         "tony.worker.resources=w.txt",
                         "tony.containers.resources=c.txt",
                         "tony.worker.node-label=gpu",
                         "tony.docker.containers.image=img:1",
                         "tony.containers.envs=A=1",
                         "tony.execution.envs=B=2",
                         "tony.python-venv=/v.zip",
                         "tony.src-dir=/src",
                         "tony.python-exec-path=/usr/bin/python3",
                         "tony.am.memory=1024",
                         "tony.application.fail-on-worker-failure-enabled=FALSE",
                         "tony.application.timeout=60000"}) {
    ASSERT_TRUE(conf.AddOverride(kv).ok()) << kv;
  }
  Result<JobSpec> spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->framework, "pytorch");
  EXPECT_EQ(spec->mode, DistributedMode::kFcfs);
  EXPECT_THAT(spec->tags, ElementsAre("a", "b"));
  EXPECT_FALSE(spec->fail_on_worker_failure);
  EXPECT_EQ(spec->application_timeout_ms, 60000);
  EXPECT_EQ(spec->am_memory_mb, 1024);
  EXPECT_THAT(spec->container_envs, ElementsAre("A=1"));
  EXPECT_THAT(spec->execution_envs, ElementsAre("B=2"));
  EXPECT_EQ(spec->python_venv, "/v.zip");
  EXPECT_EQ(spec->src_dir, "/src");
  EXPECT_EQ(spec->python_exec_path, "/usr/bin/python3");
  const RoleSpec* w = spec->FindRole("worker");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->memory_mb, 3072);
  EXPECT_EQ(w->vcores, 4);
  EXPECT_EQ(w->gpus, 2);
  EXPECT_EQ(w->nproc_per_task, 8);
  EXPECT_EQ(w->command, "python w.py");
  EXPECT_THAT(w->resources, ElementsAre("w.txt", "c.txt"));
  EXPECT_EQ(w->node_label, "gpu");
  EXPECT_EQ(w->docker_image, "img:1");
}

// TonY's job files from before TonY #596 set tony.worker.timeout: it is the execution timeout
// of every task (not a per-role key of "worker"), and the newer key wins when both are set.
TEST_F(JobSpecTest, WorkerTimeoutIsTheOlderNameOfTheExecutionTimeout) {
  Configuration old_only = Runnable();
  ASSERT_TRUE(old_only.AddOverride("tony.worker.timeout=1500").ok());
  Result<JobSpec> spec = BuildJobSpec(old_only);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->execution_timeout_ms, 1500);
  EXPECT_EQ(spec->execution_timeout_key, "tony.worker.timeout");
  EXPECT_THAT(UnknownKeyWarnings(old_only), IsEmpty());

  Configuration both = Runnable();
  ASSERT_TRUE(both.AddOverride("tony.worker.timeout=1500").ok());
  ASSERT_TRUE(both.AddOverride("tony.task.executor.execution-timeout-ms=700").ok());
  spec = BuildJobSpec(both);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->execution_timeout_ms, 700);
  EXPECT_EQ(spec->execution_timeout_key, "tony.task.executor.execution-timeout-ms");

  Configuration bad = Runnable();
  ASSERT_TRUE(bad.AddOverride("tony.worker.timeout=soon").ok());
  spec = BuildJobSpec(bad);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("tony.worker.timeout"));
}

// TonY's AM waits tony.am.wait-client-signal-stop-timeout-sec (default 15) for its client after
// the end; tony's coordinator waits as long for a client to read the final status.
TEST_F(JobSpecTest, ClientWaitAfterTheEndIsTonysStopSignalTimeout) {
  Result<JobSpec> spec = BuildJobSpec(Runnable());
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->client_wait_ms, 15'000);

  Configuration conf = Runnable();
  ASSERT_TRUE(conf.AddOverride("tony.am.wait-client-signal-stop-timeout-sec=3").ok());
  spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->client_wait_ms, 3'000);
  EXPECT_THAT(UnsupportedKeyWarnings(conf), IsEmpty());

  Configuration negative = Runnable();
  ASSERT_TRUE(negative.AddOverride("tony.am.wait-client-signal-stop-timeout-sec=-1").ok());
  spec = BuildJobSpec(negative);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("tony.am.wait-client-signal-stop-timeout-sec = \"-1\""));
}

TEST_F(JobSpecTest, RolesAreDiscoveredSortedAndFiltered) {
  Configuration conf = Runnable();
  for (const char* kv :
       {"tony.ps.instances=1", "tony.evaluator.instances=1", "tony.chief.instances=1",
        "tony.idle.instances=0", "tony.worker2.instances=3", "tony.my_role.instances=1",
        "tony.am.instances=1", "tony.containers.instances=1", "tony.task.instances=1",
        "tony.application.instances=1"}) {
    ASSERT_TRUE(conf.AddOverride(kv).ok());
  }
  Result<JobSpec> spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  std::vector<std::string> names;
  for (const RoleSpec& r : spec->roles) names.push_back(r.name);
  EXPECT_THAT(names, ElementsAre("chief", "evaluator", "ps", "worker"));
  EXPECT_EQ(spec->chief_role, "chief");
  EXPECT_EQ(spec->TotalInstances(), 5);
}

TEST_F(JobSpecTest, NoChiefWithoutChiefOrWorker) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.containers.command", "run", "--executes");
  conf.Set("tony.server.instances", "2", "--conf");
  Result<JobSpec> spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->chief_role, "");
}

TEST_F(JobSpecTest, TrackedUntrackedSidecarDefaults) {
  Configuration conf = Runnable();
  conf.Set("tony.ps.instances", "2", "--conf");
  conf.Set("tony.tensorboard.instances", "1", "--conf");
  conf.Set("tony.evaluator.instances", "1", "--conf");
  Result<JobSpec> spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  const RoleSpec* ps = spec->FindRole("ps");
  const RoleSpec* tb = spec->FindRole("tensorboard");
  const RoleSpec* ev = spec->FindRole("evaluator");
  ASSERT_TRUE(ps && tb && ev);
  EXPECT_TRUE(ps->untracked);
  EXPECT_TRUE(ps->stop_on_failure);
  EXPECT_FALSE(ps->sidecar);
  EXPECT_TRUE(tb->sidecar);
  EXPECT_FALSE(tb->untracked);
  EXPECT_FALSE(ev->untracked || ev->sidecar || ev->stop_on_failure);
  EXPECT_EQ(spec->TotalInstances(), 6);
  EXPECT_EQ(spec->TrackedInstances(), 3);

  conf.Set("tony.application.untracked.jobtypes", "evaluator", "--conf");
  conf.Set("tony.application.stop-on-failure-jobtypes", "", "--conf");
  spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok());
  EXPECT_FALSE(spec->FindRole("ps")->untracked);
  EXPECT_FALSE(spec->FindRole("ps")->stop_on_failure);
  EXPECT_TRUE(spec->FindRole("evaluator")->untracked);
}

TEST_F(JobSpecTest, BadValueErrorsNameKeyFileValueAndAccepted) {
  std::string path = Write("tony.xml", ConfXml(Property("tony.worker.instances", "2") +
                                               Property("tony.worker.memory", "lots")));
  Configuration conf = Configuration::WithDefaults();
  ASSERT_TRUE(conf.AddFile(path).ok());
  conf.Set("tony.containers.command", "x", "--executes");
  EXPECT_EQ(BuildError(conf),
            "tony.worker.memory = \"lots\" (from " + path + "): expected " + kMemorySizeForms);
}

TEST_F(JobSpecTest, TypeErrorsForEveryKind) {
  struct Case {
    const char* kv;
    const char* expected;
  } cases[] = {
      {"tony.worker.vcores=two", "tony.worker.vcores = \"two\" (from --conf): expected an integer"},
      {"tony.worker.vcores=0",
       "tony.worker.vcores = \"0\" (from --conf): expected an integer >= 1"},
      {"tony.worker.gpus=-1", "tony.worker.gpus = \"-1\" (from --conf): expected an integer >= 0"},
      {"tony.worker.instances=-2",
       "tony.worker.instances = \"-2\" (from --conf): expected an integer >= 0"},
      {"tony.worker.nproc-per-task=0",
       "tony.worker.nproc-per-task = \"0\" (from --conf): expected an integer >= 1"},
      {"tony.docker.enabled=yes",
       "tony.docker.enabled = \"yes\" (from --conf): expected true or "
       "false"},
      {"tony.application.framework=caffe",
       "tony.application.framework = \"caffe\" (from --conf): expected one of tensorflow, "
       "pytorch, horovod, mxnet, jax, standalone, generic (case-insensitive)"},
      {"tony.application.distributed-mode=ALL",
       "tony.application.distributed-mode = \"ALL\" (from --conf): expected one of GANG, FCFS "
       "(case-insensitive)"},
      {"tony.task.heartbeat-interval-ms=0",
       "tony.task.heartbeat-interval-ms = \"0\" (from --conf): expected an integer >= 1"},
      {"tony.application.timeout=soon",
       "tony.application.timeout = \"soon\" (from --conf): expected an integer number of "
       "milliseconds"},
      {"tony.am.wait-client-signal-stop-timeout-sec=x",
       "tony.am.wait-client-signal-stop-timeout-sec = \"x\" (from --conf): expected an integer "
       "number of seconds"},
      {"tony.portal.cache.max-entries=99999999999",
       "tony.portal.cache.max-entries = \"99999999999\" (from --conf): expected an integer"},
      {"tony.worker.memory=0",
       "tony.worker.memory = \"0\" (from --conf): expected a memory size of at least 1 MB"},
  };
  for (const Case& c : cases) {
    Configuration conf = Runnable();
    ASSERT_TRUE(conf.AddOverride(c.kv).ok());
    EXPECT_EQ(BuildError(conf), c.expected) << c.kv;
  }
}

// A trailing letter is never dropped: an unknown unit fails naming the key, source, value and
// the accepted forms, for every size and duration key type.
TEST_F(JobSpecTest, UnknownUnitSuffixesAreErrors) {
  struct Case {
    std::string kv;
    std::string expected;
  } cases[] = {
      {"tony.worker.memory=4x",
       std::string("tony.worker.memory = \"4x\" (from --conf): expected ") + kMemorySizeForms},
      {"tony.am.memory=2gb",
       std::string("tony.am.memory = \"2gb\" (from --conf): expected ") + kMemorySizeForms},
      {"tony.task.max-total-memory=8q",
       std::string("tony.task.max-total-memory = \"8q\" (from --conf): expected ") +
           kMemorySizeForms + ", or -1 for no cap"},
      {"tony.task.heartbeat-interval-ms=10s",
       "tony.task.heartbeat-interval-ms = \"10s\" (from --conf): expected an integer number of "
       "milliseconds"},
      {"tony.task.executor.registry-timeout-sec=30s",
       "tony.task.executor.registry-timeout-sec = \"30s\" (from --conf): expected an integer "
       "number of seconds"},
      {"tony.worker.vcores=2c", "tony.worker.vcores = \"2c\" (from --conf): expected an integer"},
  };
  for (const Case& c : cases) {
    Configuration conf = Runnable();
    ASSERT_TRUE(conf.AddOverride(c.kv).ok());
    EXPECT_EQ(BuildError(conf), c.expected) << c.kv;
  }
}

TEST_F(JobSpecTest, EveryErrorIsReported) {
  Configuration conf = Runnable();
  ASSERT_TRUE(conf.AddOverride("tony.worker.vcores=0").ok());
  ASSERT_TRUE(conf.AddOverride("tony.am.memory=huge").ok());
  std::string err = BuildError(conf);
  EXPECT_THAT(err, HasSubstr("tony.worker.vcores = \"0\""));
  EXPECT_THAT(err, HasSubstr("tony.am.memory = \"huge\""));
}

// TonY's single-node job: no task instances, the command runs once (as task am:0, with the AM's
// resources), whatever the framework needs of a distributed job.
TEST_F(JobSpecTest, NoTasksIsASingleNodeJobOfTheCommand) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.containers.command", "python single.py", "--executes");
  conf.Set("tony.worker.instances", "0", "--conf");
  conf.Set("tony.am.memory", "3g", "--conf");
  conf.Set("tony.application.framework", "pytorch", "--conf");
  auto spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_EQ(spec->roles.size(), 1u);
  const RoleSpec& am = spec->roles[0];
  EXPECT_EQ(am.name, "am");
  EXPECT_TRUE(am.preprocess);
  EXPECT_EQ(am.instances, 1);
  EXPECT_EQ(am.command, "python single.py");
  EXPECT_EQ(am.memory_mb, 3072);
  EXPECT_TRUE(spec->SingleNode());
  EXPECT_EQ(spec->TotalInstances(), 0);  // TonY's task count: no task of a framework's cluster
  EXPECT_FALSE(spec->Staged());
  EXPECT_TRUE(runtime::ValidateForFramework(*spec).ok());
}

TEST_F(JobSpecTest, NoTasksAndNoCommandIsAnError) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.worker.instances", "0", "--conf");
  std::string err = BuildError(conf);
  EXPECT_THAT(err, HasSubstr("no tasks and no command"));
  EXPECT_THAT(err, HasSubstr("tony.<role>.instances"));
  EXPECT_THAT(err, HasSubstr("tony.containers.command"));
}

// TonY's preprocessing job: tony.am.command (else the tasks' command) runs first, in a stage of
// its own before the prepare and training stages.
TEST_F(JobSpecTest, EnablePreprocessRunsTheAmCommandInAStageBeforeEveryRole) {
  Configuration conf = Runnable();
  conf.Set("tony.application.enable-preprocess", "true", "tony.xml");
  conf.Set("tony.am.command", "python prep.py", "tony.xml");
  conf.Set("tony.db.instances", "1", "tony.xml");
  conf.Set("tony.application.prepare-stage", "db", "tony.xml");
  auto spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_EQ(spec->roles.size(), 3u);
  EXPECT_EQ(spec->roles[0].name, "am");
  EXPECT_EQ(spec->roles[0].command, "python prep.py");
  EXPECT_EQ(spec->roles[0].stage, 0);
  EXPECT_EQ(spec->FindRole("db")->stage, 1);
  EXPECT_EQ(spec->FindRole("worker")->stage, 2);
  EXPECT_EQ(spec->StageName(0), "preprocess");
  EXPECT_EQ(spec->StageName(1), "prepare");
  EXPECT_EQ(spec->StageName(2), "training");
  EXPECT_FALSE(spec->SingleNode());
  EXPECT_EQ(spec->TrackedInstances(), 3);  // TASK_NUM: db and the workers, not am
  EXPECT_EQ(spec->chief_role, "worker");

  conf = Runnable();
  conf.Set("tony.application.enable-preprocess", "true", "tony.xml");
  spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->PreprocessRole()->command, "python train.py");  // tony.containers.command
  EXPECT_EQ(spec->FindRole("worker")->stage, 1);
  EXPECT_EQ(spec->StageName(1), "training");

  conf = Runnable();  // off by default: no am task
  spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->PreprocessRole(), nullptr);
}

TEST_F(JobSpecTest, RoleWithoutCommandIsAnError) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.worker.instances", "1", "--conf");
  conf.Set("tony.ps.instances", "1", "--conf");
  conf.Set("tony.ps.command", "run-ps", "--conf");
  std::string err = BuildError(conf);
  EXPECT_THAT(err, HasSubstr("role worker has no command"));
  EXPECT_THAT(err, HasSubstr("tony.worker.command"));
  EXPECT_THAT(err, HasSubstr("tony.containers.command"));
  EXPECT_THAT(err, HasSubstr("--executes"));
  EXPECT_THAT(err, ::testing::Not(HasSubstr("role ps")));
}

TEST_F(JobSpecTest, LimitsAreEnforced) {
  std::string site = Write("tony-site.xml", ConfXml(Property("tony.worker.max-instances", "3") +
                                                    Property("tony.task.max-total-instances", "4") +
                                                    Property("tony.task.max-total-gpus", "2") +
                                                    Property("tony.task.max-total-memory", "8g")));
  Configuration conf = Runnable();
  ASSERT_TRUE(conf.AddFile(site).ok());
  ASSERT_TRUE(BuildJobSpec(conf).ok());

  conf.Set("tony.worker.instances", "4", "--conf");
  conf.Set("tony.ps.instances", "1", "--conf");
  conf.Set("tony.worker.gpus", "1", "--conf");
  std::string err = BuildError(conf);
  EXPECT_THAT(err, HasSubstr("tony.worker.instances = \"4\" (from --conf) exceeds "
                             "tony.worker.max-instances = \"3\" (from " +
                             site + ")"));
  EXPECT_THAT(err, HasSubstr("total instances 5 (ps: 1 x 1, worker: 4 x 1) exceeds "
                             "tony.task.max-total-instances = \"4\" (from " +
                             site + ")"));
  EXPECT_THAT(err, HasSubstr("total gpus 4"));
  EXPECT_THAT(err, HasSubstr("tony.task.max-total-gpus"));
  EXPECT_THAT(err, HasSubstr("total memory 10240"));
  EXPECT_THAT(err, HasSubstr("tony.task.max-total-memory = \"8g\""));
}

TEST_F(JobSpecTest, UnknownKeyWarningsSuggestTheClosestKey) {
  Configuration conf = Runnable();
  ASSERT_TRUE(
      conf.AddXml(
              ConfXml(Property("tony.worker.memroy", "4g") + Property("tony.wroker.vcores", "2") +
                      Property("tony.worker1.instances", "1") + Property("tony.zzz.qqq.www", "1") +
                      Property("tony.application.name", "ok")),
              "/t/tony.xml")
          .ok());
  std::vector<std::string> w = UnknownKeyWarnings(conf);
  ASSERT_EQ(w.size(), 4u) << testing::PrintToString(w);
  EXPECT_EQ(w[0],
            "unknown key tony.worker.memroy (from /t/tony.xml); did you mean tony.worker.memory?");
  EXPECT_THAT(w[1], HasSubstr("unknown key tony.worker1.instances (from /t/tony.xml)"));
  EXPECT_THAT(w[1], HasSubstr("[a-z]+"));
  EXPECT_THAT(w[2], HasSubstr("key tony.wroker.vcores (from /t/tony.xml)"));
  EXPECT_THAT(w[2], HasSubstr("did you mean tony.worker.vcores?"));
  EXPECT_EQ(w[3], "unknown key tony.zzz.qqq.www (from /t/tony.xml)");
}

// ---- Docker (tony.docker.*, applied by the YARN engine) ----

TEST_F(ConfigTest, DockerImagesPerRoleFallBackToTheContainersImage) {
  Configuration conf = Runnable();
  conf.Set("tony.ps.instances", "1", "--conf");
  conf.Set("tony.docker.enabled", "true", "--conf");
  conf.Set("tony.docker.containers.image", "team/train:3", "--conf");
  conf.Set("tony.docker.ps.image", "team/ps:1", "--conf");
  conf.Set("tony.docker.containers.mount", "/data:/data:ro", "--conf");
  Result<JobSpec> spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_TRUE(spec->docker_enabled);
  EXPECT_EQ(spec->FindRole("worker")->docker_image, "team/train:3");
  EXPECT_EQ(spec->FindRole("ps")->docker_image, "team/ps:1");
  EXPECT_EQ(spec->am_docker_image, "team/train:3");
  EXPECT_EQ(spec->docker_mounts, "/data:/data:ro");
}

TEST_F(ConfigTest, DockerWithoutAnImageNamesTheContainerAndTheKeys) {
  Configuration conf = Runnable();
  conf.Set("tony.docker.enabled", "true", "--conf");
  conf.Set("tony.docker.am.image", "team/am:1", "--conf");
  std::string error = BuildError(conf);
  EXPECT_NE(error.find("tony.docker.enabled = \"true\" (from --conf) but role worker has no image: "
                       "set tony.docker.worker.image or tony.docker.containers.image"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find("the coordinator (AM)"), std::string::npos) << error;
}

// ---- Unsupported and unknown keys (the applied/unsupported audit is in keys_test.cc) ----

// A value for an unsupported key (as a user would set it) and the concrete key.
std::pair<std::string, std::string> UserSetting(const KeySpec& spec) {
  std::string key(spec.name);
  for (auto [from, to] : {std::pair{"<role>", "worker"}, std::pair{"<group>", "grp"}}) {
    for (size_t at = key.find(from); at != std::string::npos; at = key.find(from)) {
      key.replace(at, std::string_view(from).size(), to);
    }
  }
  switch (spec.type) {
    case KeyType::kBool:
      return {key, spec.default_value == "true" ? "false" : "true"};
    case KeyType::kInt:
    case KeyType::kLong:
    case KeyType::kDurationMs:
      return {key, "7"};
    case KeyType::kMemory:
      return {key, "3g"};
    default:
      return {key, "x"};
  }
}

TEST_F(JobSpecTest, EveryUnsupportedKeyWarnsByNameWithItsReason) {
  for (const KeySpec& spec : AllKeys()) {
    if (spec.unsupported.empty()) continue;
    auto [key, value] = UserSetting(spec);
    Configuration conf = Runnable();
    ASSERT_TRUE(conf.AddOverride(key + "=" + value).ok());
    EXPECT_TRUE(BuildJobSpec(conf).ok()) << key;
    std::vector<std::string> w = UnsupportedKeyWarnings(conf);
    ASSERT_EQ(w.size(), 1u) << key;
    EXPECT_EQ(w[0], key + " = \"" + value +
                        "\" (from --conf) is not supported by tony and has no "
                        "effect: " +
                        std::string(spec.unsupported));
  }
}

TEST_F(JobSpecTest, UnsupportedKeysAtTheirDefaultOrSetByTheirFlagDoNotWarn) {
  Configuration conf = Runnable();
  ASSERT_TRUE(conf.AddOverride("tony.am.startup-timeout=0").ok());
  conf.Set("tony.src-dir", "src", "--src_dir");
  EXPECT_THAT(UnsupportedKeyWarnings(conf), IsEmpty());
  EXPECT_THAT(UnsupportedKeyWarnings(Configuration::WithDefaults()), IsEmpty());
}

TEST_F(JobSpecTest, KeysTonyNeverHadNameTheRightKeyOrFlag) {
  Configuration conf = Runnable();
  ASSERT_TRUE(conf.AddOverride("tony.docker.image=team/train:1").ok());
  ASSERT_TRUE(conf.AddOverride("tony.application.virtualenv.zip=venv.zip").ok());
  std::vector<std::string> w = UnknownKeyWarnings(conf);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0],
            "unknown key tony.application.virtualenv.zip (from --conf); ship a virtualenv with "
            "--python_venv <zip> (tony.python-venv)");
  EXPECT_EQ(w[1],
            "unknown key tony.docker.image (from --conf); TonY's keys are "
            "tony.docker.containers.image (or tony.docker.<role>.image) with "
            "tony.docker.enabled=true");
}

}  // namespace
}  // namespace tony
