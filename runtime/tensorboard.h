// TensorBoard as TonY runs it (docs/tony-compat.md "TensorBoard"): one task of the job gets a
// port for TensorBoard in $TB_PORT, and the coordinator shows its URL. That task is the chief,
// unless tony.application.tensorboard-log-dir (or --sidecar_tensorboard_log_dir) adds TonY's
// sidecar role `tensorboard`, which runs TensorBoard on that directory; then only it gets the
// port, and it is its own task port, so the cluster spec's `tensorboard` address is TensorBoard's.
//
// Pure functions over the configuration and the job spec: the client adds the role, the executor
// reserves the port and builds the variables.
#pragma once

#include <string>

#include "common/process.h"
#include "common/status.h"
#include "config/configuration.h"
#include "config/job_spec.h"
#include "config/key_names.h"

namespace tony::runtime {

inline constexpr char kTensorBoardRole[] = "tensorboard";

// With keys::kApplicationTensorboardLogDir set (non-empty): adds the sidecar role as TonY does: one
// instance (forced), tony.tensorboard.{vcores,memory,gpus,command} where the job did not set them
// (1, 2g, 0, TensorBoard on $TB_LOG_DIR at $TB_PORT on all interfaces, run with `python` when
// given, else the `tensorboard` on the task's PATH), and the role in
// tony.application.sidecar.jobtypes. The default command exits 127 with a message naming
// tony.tensorboard.command when it finds no TensorBoard. Without the key, nothing changes.
Status AddTensorBoardSidecar(Configuration& conf, const std::string& python);

// Whether the job runs the sidecar (its spec's tensorboard_log_dir is set).
bool HasTensorBoardSidecar(const JobSpec& spec);

// Whether task role:index gets TB_PORT: the sidecar's task when the job has one, else the chief
// (TonY's testTensorBoardPortSetOnlyOnChiefWorker, testAttachedTensorboardShouldPass), or in a
// single-node job (no instances) its one task am:0, as TonY's AM runs that command with one.
bool GetsTensorBoardPort(const JobSpec& spec, const std::string& role, int index);

// Whether that port is the task's own reserved port (the sidecar's) rather than a second one.
bool TensorBoardOnTaskPort(const JobSpec& spec, const std::string& role);

// The variables for a task that GetsTensorBoardPort: TB_PORT; TB_SERVER_REUSE_PORT=true when the
// executor keeps the port bound with SO_REUSEPORT (TensorBoard 2.5 and later then bind it too);
// and for the sidecar, TB_LOG_DIR.
EnvMap TensorBoardEnv(const JobSpec& spec, const std::string& role, int port, bool held);

}  // namespace tony::runtime
