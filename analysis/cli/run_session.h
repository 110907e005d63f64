// One profiled run (DCPI's daemon moved to the host, DESIGN §6): boot QEMU
// with the workloads, pull the transfer ring through the GDB stub while the
// guest runs, attribute and merge into the profile database after every
// pull, and stop when the guest says DCPI-DONE (init exited, final flush
// done). Whatever happens, everything pulled so far is in the database.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "hostdump/session.h"
#include "qemu/host/machine_config.h"

namespace dcpi {

// How profile records leave the guest (docs/transfer-format.md): the GDB
// stub reading the ring in memory, or the second serial port (COM2).
enum class Transport { kGdb, kSerial };

struct RunOptions {
  qemu::MachineConfig machine;  // palcode, kernel, initrd, cpus, memory
  std::string script;           // /etc/NAME.mix, or "copy,stream" (init runs /bin/copy, ...)
  std::filesystem::path database;
  std::optional<uint64_t> epoch;  // database epoch of this run; default: after the last one
  uint32_t period_base = 0;       // 0: the driver's default [60K, 64K)
  uint32_t period_range = 0;
  // The machine whose time the guest runs on, recorded with every epoch of
  // the run (epoch.meta `machine`, issue 14): "qemu" or "ev5" (dcpi run --machine).
  std::string timing_machine{kMachineQemu};
  bool profile = true;  // false: an unprofiled run (overhead baselines)
  std::string values;   // "N/k": value sampling (seed 001 §3.4), kernel values=N/k; empty: off
  std::vector<std::string> value_modules;  // customization module plug-ins (seed 001 §2.4)
  std::string value_capture;  // kernel vcapture= spec (values/value_capture.h); empty: default
  double pull_interval_seconds = 0.5;
  double timeout_seconds = 900;
  Transport transport = Transport::kGdb;
  std::optional<uint16_t> gdb_port;   // default: a free loopback port
  bool gdb_stub = true;               // false: no -gdb (only for --print-qemu-command)
  std::optional<std::string> append;  // the kernel command line verbatim, instead of
                                      // the one built from the options above
  // (host file, guest path) of images the initrd carries whose host files are
  // known (dcpi run -- PROGRAM): recorded as such in the image catalog.
  std::vector<std::pair<std::string, std::string>> known_images;
  std::ostream* console = nullptr;   // echo of the guest console
  std::ostream* progress = nullptr;  // progress lines
};

struct RunResult : SessionStats {  // pulls: GDB pulls, or serial reads
  uint64_t epoch_base = 0;         // database epoch = epoch_base + guest epoch
  std::string console;             // everything the guest printed
};

// Throws std::runtime_error (QEMU failed or died, the guest panicked, timeout,
// stub error) or qemu::Interrupted (SIGINT, SIGTERM, SIGHUP) after storing
// what was pulled and stopping QEMU; `partial` (if given) then holds what was
// done.
RunResult run_profiled_workload(const RunOptions& options, RunResult* partial = nullptr);

// The kernel command line for `options` (tests check it).
std::string kernel_command_line(const RunOptions& options);

// The machine `options` describe, with the kernel command line and, for the
// GDB transport, a stub port (options.gdb_port or a free loopback port).
qemu::MachineConfig run_machine(const RunOptions& options);

}  // namespace dcpi
