// How the workloads of a `dcpi run` ended, read from what the kernel and
// init sent the host (issue 16; the host channel since issue 30, so that a
// program printing the same lines on the console changes nothing): init prints one line per child
// (`init: copy pid 3 exit 0`,
// `... signal 11`, `... spawn failed: ...`, `init: cannot open SCRIPT: ...`;
// workloads/init.c) and the kernel the cycles init ran, spawn to exit
// (`dcpi-kernel: init ran N cycles`, kernel/process.cpp). A run whose
// workload failed still stores its profile, but dcpi run exits non-zero.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcpi {

struct WorkloadOutcome {
  // The workload's own guest cycles: init's spawn to exit, before the guest
  // idles until the host stops it. nullopt when the kernel did not say.
  std::optional<uint64_t> init_cycles;
  std::optional<int64_t> init_status;  // init's exit status (or signal), if printed
  // One line per failure: "/bin/copy (pid 3) exited with status 2",
  // "/bin/x (pid 4) was killed by signal 11", "no mix /etc/foo.mix in the initrd ...".
  std::vector<std::string> failures;

  bool failed() const { return !failures.empty(); }
};

WorkloadOutcome read_workload_outcome(std::string_view console);

}  // namespace dcpi
