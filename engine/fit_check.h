// Whether a job can ever run on its engine's capacity, decided before anything is started.
//
// One check serves both engines (docs/architecture.md §2): the YARN client face hands it the
// RUNNING NodeManagers the ResourceManager reports and the queue's share; the local client face
// hands it this machine as one node. A gang job holds every container of a stage at once (the
// GANG barrier, coordinator/core), and on YARN the AM's for the whole run. YARN never says that
// an ask cannot be met: it keeps it pending, so a job whose containers cannot all be placed at
// once starts some tasks and waits for the rest forever; on one machine the tasks of a stage
// simply run together. CheckJobFits refuses such a job with the numbers, the keys that set them
// and where each value came from (the job file, --conf, or tony's default). Only what can NEVER
// fit is refused: nodes count with their total capability, not with what is free now, and queues
// with their maximum capacity, not their guaranteed one.
//
// Pure functions over plain values (tests/unit/fit_check_test.cc, and the cases of
// tests/fit_cases.txt run against both engines).
// Thread-safety: plain functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "config/configuration.h"
#include "config/job_spec.h"
#include "config/key_names.h"

namespace tony::engine {

// What a container holds, in the units the engines count.
struct FitResources {
  int64_t memory_mb = 0;
  int vcores = 0;
  int64_t gpus = 0;
};

// A node the job's containers may go to (a RUNNING NodeManager, or this machine): its total
// capability and its node labels.
struct FitNode {
  FitResources capability;
  std::vector<std::string> labels;
};

// One kind of container the job holds at once: the AM's, or `count` tasks of one role.
struct FitAsk {
  bool am = false;
  std::string role;       // empty for the AM
  FitResources resource;  // as the engine allocates it (rounded up where the client knows how)
  int count = 1;
  std::string node_label;  // an exact label; empty: any node
  // What set each amount, as the message names it: "tony.worker.memory = 4g from <tony.xml>".
  std::string memory_setting;
  std::string vcores_setting;
  std::string gpus_setting;
  std::string count_setting;  // empty for the AM
  std::string label_setting;  // empty without a label
};

// Containers that are all held at the same time.
struct FitGang {
  std::vector<FitAsk> asks;
};

// The queue the job is submitted to, by its maximum share of the cluster.
struct FitQueue {
  std::string name;
  double max_fraction = 1.0;  // of the cluster's total resources
};

// How the refusals name the engine's capacity. The defaults are a cluster's (YARN's words); the
// local face says "this machine" (engine/local/local_engine.cc, LocalFitWords).
struct FitWords {
  std::string place = "this cluster";  // "the job can never run on <place>"
  std::string node = "NodeManager";    // "the largest <node>", "2 <node>s of 4096 MB each"
  // One node that is the whole capacity (this machine): "this machine has 8192 MB".
  bool one_node = false;
  // GPU amounts: "<gpu_unit>:2" (YARN's resource name); empty: "2 GPUs".
  std::string gpu_unit = "yarn.io/gpu";
  // Why there are none, in a refusal of a GPU ask where no node offers any.
  std::string no_gpus_why =
      "no running NodeManager offers yarn.io/gpu (it needs yarn.resource-types=yarn.io/gpu and "
      "NodeManagers with GPUs)";
  // Why a gang's containers must all fit at once.
  std::string together = "the gang needs all of them at once";
  // The way out, in parentheses at the end of every refusal.
  std::string way_out = std::string(keys::kApplicationSkipFitCheck) +
                        "=true submits it anyway, for a cluster that will grow";
};

struct FitInput {
  std::vector<FitNode> nodes;  // RUNNING ones only; CheckJobFits refuses nothing without any
  std::vector<FitGang> gangs;
  // Whether the scheduler counts vcores when it places a container (CapacityScheduler with its
  // default calculator does not: it places by memory alone; the local engine lets tasks share
  // the CPUs).
  bool count_vcores = true;
  std::optional<FitQueue> queue;
  FitWords words;
};

enum class Packing { kFits, kCannot, kUnknown };

// First-fit decreasing over memory, GPUs and (with count_vcores) vcores, each container only on
// nodes with its label; where first fit gets stuck it backtracks, so kCannot means no placement
// exists at all. kUnknown: the search gave up after `budget` placements (a huge gang on many
// unlike nodes), which must not refuse a job.
Packing PackGang(const std::vector<FitNode>& nodes, const FitGang& gang, bool count_vcores,
                 int64_t budget = 200'000);

// The warning's words when the ResourceManager cannot tell whether the job fits, so that nothing
// is refused: its node call `node_call` failed, or none of the `known` nodes it reports is
// RUNNING (`running`). nullopt: the check can be made.
std::optional<std::string> FitCheckSkipped(const Status& node_call, size_t running, size_t known);

// Ok, or kResourceExhausted saying which container, gang or queue can never fit, with the
// numbers, the keys that set them, where each value came from, and the words' way out.
Status CheckJobFits(const FitInput& in);

// How an engine holds a job's containers.
struct GangOptions {
  // The coordinator holds a container of its own for the whole run (YARN's AM); the local
  // coordinator is a plain process beside the tasks, not counted.
  bool am_container = true;
  // In FCFS mode tasks start one by one as their containers come (YARN); false: every task of a
  // stage runs at once whatever the mode (one machine starts them all).
  bool fcfs_one_at_a_time = true;
  // Node labels place containers (YARN); false: there is one node and labels mean nothing.
  bool labels = true;
  std::string am_node_label;  // tony.application.node-label, the AM's label
  // yarn.scheduler.minimum-allocation-mb, as the scheduler normalizes an ask; 0: not rounded.
  int64_t min_allocation_mb = 0;
};

// The job's gangs: for each stage in GANG mode, the AM and every task of the stage (a stage's
// untracked tasks may outlive it, but only while they run: not counted, so as never to refuse
// wrongly); in FCFS mode with fcfs_one_at_a_time, the AM and one task of each role. A task
// without a label of its own may land on any node here: the RM may still confine it (to the
// application's label, the queue's default label, or the default partition), but placing it
// anywhere can only make the check refuse less. Each setting names the key, its value as the job
// has it, and where that came from (spec.sources: a file's path or a flag; else tony's default).
std::vector<FitGang> JobGangs(const JobSpec& spec, const Configuration& conf,
                              const GangOptions& options);

}  // namespace tony::engine
