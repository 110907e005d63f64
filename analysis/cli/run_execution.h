// dcpi run's whole run (command_run.cpp), for the commands built on it: dcpi
// stat runs the same options, bundling and pull loop with counting instead
// of sampling, then reports from the database the run left.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hostdump/run/profiled_run.h"
#include "hostdump/run/workload_outcome.h"

namespace dcpi {

struct FinishedRun {
  RunRequest run;
  RunResult result;
  WorkloadOutcome outcome;
  int exit_status = 0;  // dcpi run's: the programs', 1 for a failed workload, 128 + a signal
};

// `arguments` are dcpi run's; `prepare` adjusts the request before the boot;
// `summary`: print dcpi run's summary. nullopt when only --print-qemu-command
// ran. Throws UsageError and run_profiled_workload's errors.
std::optional<FinishedRun> execute_run(const std::vector<std::string>& arguments,
                                       const std::function<void(RunRequest&)>& prepare,
                                       bool summary);

}  // namespace dcpi
