// What tony does differently per tony.application.framework, beyond the task environment
// (runtime.h: ValidateForFramework, BuildTaskEnv): the roles a framework adds to the job, the
// files its tasks need, and when a task's user process may start. Callers (client/submit,
// executor/) ask these functions and never test a framework's name themselves, so a new
// framework touches this folder only.
//
// Threading: pure functions, except WaitUntilReady, which blocks its caller (the executor,
// before the user process starts).
#pragma once

#include <string>

#include "common/status.h"
#include "config/configuration.h"
#include "config/job_spec.h"
#include "runtime/runtime.h"

namespace tony::runtime {

// At submit, before the JobSpec is built: the roles the framework adds unless the job brings its
// own (Horovod: TonY's untracked one-task `driver`, runtime/horovod_driver.h). `python` is the
// job's interpreter (tony.python-exec-path), empty for the default.
void AddFrameworkRoles(Configuration& conf, const std::string& python);

// In the executor, after localization: files the task needs in its working directory (Horovod's
// driver: the rendezvous script).
Status PrepareTask(const JobSpec& spec, const std::string& role);

// In the executor, once the cluster spec is known: returns when the task's user process may
// start (Horovod's workers: once the driver serves the gloo rendezvous, which its clients give up
// on after a few tries), or an error after a bound.
Status WaitUntilReady(const JobSpec& spec, const std::string& role, const Cluster& cluster);

}  // namespace tony::runtime
