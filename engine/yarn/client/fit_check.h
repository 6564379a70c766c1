// Whether a job can ever run on a YARN cluster, decided before anything is staged or submitted.
//
// A gang job holds every container of a stage at once (the GANG barrier, coordinator/core), and
// the AM's for the whole run. YARN never says that an ask cannot be met: it keeps it pending.
// A job whose containers cannot all be placed on the cluster's NodeManagers at once therefore
// starts some tasks and waits for the rest forever. CheckJobFits refuses such a job with the
// numbers and the keys that set them; only what can NEVER fit is refused: nodes count with their
// total capability, not with what is free now (other applications' containers end), and queues
// with their maximum capacity, not their guaranteed one.
//
// Pure functions over plain values (tests/unit/fit_check_test.cc);
// engine/yarn/client/yarn_submit.cc gathers the nodes and the queue from the ResourceManager.
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
#include "hadoop/yarn/records.h"

namespace tony::client {

inline constexpr const auto& kSkipFitCheckKey = keys::kApplicationSkipFitCheck;

// A RUNNING NodeManager: its total capability and its node labels.
struct FitNode {
  hadoop::yarn::Resource capability;
  std::vector<std::string> labels;
};

// One kind of container the job holds at once: the AM's, or `count` tasks of one role.
struct FitAsk {
  bool am = false;
  std::string role;                 // empty for the AM
  hadoop::yarn::Resource resource;  // as YARN allocates it (rounded up where the client knows how)
  int count = 1;
  std::string node_label;  // an exact label; empty: any node
  // What set each amount, as the message names it: "tony.worker.memory = 4g".
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

struct FitInput {
  std::vector<FitNode> nodes;  // RUNNING ones only; CheckJobFits refuses nothing without any
  std::vector<FitGang> gangs;
  // Whether the scheduler counts vcores when it places a container (CapacityScheduler with its
  // default calculator does not: it places by memory alone).
  bool count_vcores = true;
  std::optional<FitQueue> queue;
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
// numbers, the keys that set them and kSkipFitCheckKey as the way out.
Status CheckJobFits(const FitInput& in);

// The job's gangs: for each stage in GANG mode, the AM and every task of the stage (a stage's
// untracked tasks may outlive it, but only while they run: not counted, so as never to refuse
// wrongly); in FCFS mode, where tasks start one by one, the AM and one task of each role.
// `am_node_label` is tony.application.node-label, the AM's label. A task without a label of its
// own may land on any node here: the RM may still confine it (to the application's label, the
// queue's default label, or the default partition), but placing it anywhere can only make the
// check refuse less. Memory is rounded up to a multiple of `min_allocation_mb`
// (yarn.scheduler.minimum-allocation-mb, as the scheduler normalizes an ask; 0: unknown, not
// rounded).
std::vector<FitGang> JobGangs(const JobSpec& spec, const Configuration& conf,
                              const std::string& am_node_label, int64_t min_allocation_mb);

}  // namespace tony::client
