// One profiled run (DCPI's daemon moved to the host, DESIGN §6): boot QEMU
// with the workloads, pull the transfer ring through the GDB stub (or read
// the COM2 stream) while the guest runs, attribute and merge into the profile
// database after every pull, and stop when the guest says DCPI-DONE (init
// exited, final flush done). Whatever happens, everything pulled so far is in
// the database.
//
// The request is the run's own: `dcpi run` (analysis/cli/command_run.cpp)
// fills it from its options, as perf's builtin-record.c fills util/'s
// structures; nothing here knows the command line.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "hostdump/session.h"
#include "profiledb/profile_db.h"

namespace dcpi {

// How profile records leave the guest (docs/transfer-format.md): the GDB
// stub reading the ring in memory, or the second serial port (COM2).
enum class Transport { kGdb, kSerial };

// The machine a run boots; qemu/host/machine_config.h turns it into QEMU's argv.
struct RunMachine {
  std::string qemu_binary;  // empty: Debian's qemu-system-alpha on PATH
  std::string palcode;
  std::string kernel;
  std::string initrd;  // empty: none
  uint32_t cpus = 1;
  uint32_t memory_mb = 256;
  std::vector<std::string> plugins;      // -plugin arguments (TCG plugins)
  std::optional<uint16_t> serial2_port;  // COM2 connects to this loopback port (command line only)
};

struct RunRequest {
  RunMachine machine;  // palcode, kernel, initrd, cpus, memory
  std::string script;  // /etc/NAME.mix, or "copy,stream" (init runs /bin/copy, ...)
  std::filesystem::path database;
  std::optional<uint64_t> epoch;  // database epoch of this run; default: after the last one
  uint32_t period_base = 0;       // 0: the driver's default [60K, 64K)
  uint32_t period_range = 0;
  uint32_t seed = 0;  // --seed: the driver's random draws (0: its built-in seed)
  // --realtime: the guest's wall clock at boot, seconds since 1970 (kernel
  // realtime=; 0: 1970, and the line says nothing).
  uint64_t realtime_seconds = 0;
  // dcpi run --events (issue 26): the event set (firmware/events.h), 0 for
  // the driver's default (cycles); with events_mux, time-multiplexed.
  uint32_t events = 0;
  bool events_mux = false;
  // Counters 1 and 2's kill bits (--events imiss:u; kernel ekill=), 0: every mode.
  uint32_t event_kill = 0;
  // dcpi stat (issue 26 item 4): counting mode's events (kernel count=), 0: off.
  uint32_t count_events = 0;
  // dcpi run --profileme (issue 27): instruction sampling every ~N fetched
  // instructions (kernel profileme=N; 1: the driver's default), 0: off.
  uint32_t profileme = 0;
  // --profileme-paired W (issue 27 item 2): kernel profileme_pair=W, 0: off.
  uint32_t profileme_pair = 0;
  // The machine whose time the guest runs on, recorded with every epoch of
  // the run (epoch.meta `machine`, issue 14): "qemu" or "ev5" (dcpi run --machine).
  std::string timing_machine{kMachineQemu};
  bool profile = true;  // false: an unprofiled run (overhead baselines)
  // dcpi run --output's guest paths (kernel output=, hostdump/run/guest_outputs.h).
  std::vector<std::string> outputs;
  // What the programs print to stdout and stderr reaches a terminal on the
  // host (kernel tty=N): the guest's console answers isatty() on that stream
  // as the terminal would. False, the default: as a Linux program's
  // redirected stdout (fully buffered stdio).
  bool output_terminal = false;
  bool error_terminal = false;
  std::string values;  // "N/k": value sampling (seed 001 §3.4), kernel values=N/k; empty: off
  std::vector<std::string> value_modules;  // customization module plug-ins (seed 001 §2.4)
  std::string value_capture;  // kernel vcapture= spec (values/value_capture.h); empty: default
  double pull_interval_seconds = 0.5;
  double timeout_seconds = 900;
  Transport transport = Transport::kGdb;
  std::optional<uint16_t> gdb_port;   // default: a free loopback port
  bool gdb_stub = true;               // false: no -gdb (only for the command line)
  std::optional<std::string> append;  // the kernel command line verbatim, instead of
                                      // the one built from the fields above
  // With a truth plugin: where the run lists its images for it (the
  // plugin's images=), written before boot, removed after.
  std::string truth_images;
  // The truth file the plugin writes at exit (empty: none); the run adds
  // its address spaces' images to it (truth_maps.h).
  std::string truth_file;
  // dcpi run --contexts: where the contexts plugin writes its raw calling
  // context tree (empty: no plugin); attributed into the run's last epoch.
  std::string contexts_raw;
  // dcpi run --paths (ev5): where the model's plugin writes its raw path
  // profiles (empty: none); attributed into the run's last epoch.
  std::string paths_raw;
  // dcpi run -g (issue 28): bytes of stack the driver copies with every
  // sample for the host's CFI unwinder (kernel chains=); 0: no call chains.
  uint32_t chain_stack_bytes = 0;
  // (host file, guest path) of images the initrd carries whose host files are
  // known (dcpi run -- PROGRAM): recorded as such in the image catalog.
  std::vector<std::pair<std::string, std::string>> known_images;
  std::ostream* console = nullptr;   // echo of the guest console
  std::ostream* progress = nullptr;  // progress lines
};

struct RunResult : SessionStats {  // pulls: GDB pulls, or serial reads
  uint64_t epoch_base = 0;         // database epoch = epoch_base + guest epoch
  std::string console;             // everything the guest printed (only echoed)
  // What the kernel and init sent the host (qemu/host/host_channel.h): the
  // lines the verdicts are read from, which no profiled program can forge.
  std::string host_messages;
  // SIGINT, SIGTERM or SIGHUP stopped the run (issue 18): what was pulled is
  // stored and QEMU is stopped. The signal's number (0: none) and what the
  // run said about it.
  int stop_signal = 0;
  std::string stop_reason;
  // --contexts: threads and contexts stored, and in which epoch (0: none).
  uint64_t context_threads = 0;
  uint64_t context_nodes = 0;
  uint64_t contexts_epoch = 0;
  // --paths: distinct paths stored, and in which epoch (0: none).
  uint64_t path_count = 0;
  uint64_t paths_epoch = 0;
  // -g: chain samples and distinct chain nodes stored, and in which epoch.
  uint64_t chain_samples = 0;
  uint64_t chain_nodes = 0;
  uint64_t chains_epoch = 0;
};

// Runs the workloads to their end, or until a stop signal (then
// result.stop_signal says so). Throws std::runtime_error (QEMU failed or
// died, the guest panicked, timeout, stub error) after storing what was
// pulled and stopping QEMU.
RunResult run_profiled_workload(const RunRequest& request);

// The kernel command line for `request`.
std::string kernel_command_line(const RunRequest& request);

// QEMU's argv for `request` (dcpi run --print-qemu-command), with the kernel
// command line and, for the GDB transport, a stub port. Throws
// std::runtime_error naming a missing file or a bad CPU count.
std::vector<std::string> qemu_command_for(const RunRequest& request);

}  // namespace dcpi
