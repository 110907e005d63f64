#include "hostdump/run/profiled_run.h"

#include <fstream>
#include <memory>
#include <stdexcept>

#include "hostdump/gdb/gdb_client.h"
#include "hostdump/gdb/ring_source.h"
#include "hostdump/run/booted_images.h"
#include "hostdump/run/chain_unwind.h"
#include "hostdump/run/context_store.h"
#include "hostdump/run/truth_maps.h"
#include "hostdump/serial/stream_source.h"
#include "hostdump/values/customization_module.h"
#include "profiledb/profile_db.h"
#include "profiledb/profile_db_writer.h"
#include "qemu/host/com2_listener.h"
#include "qemu/host/loopback.h"
#include "qemu/host/machine_config.h"
#include "qemu/host/qemu_session.h"
#include "qemu/host/stop_signals.h"
#include "symbols/elf_symbols.h"
#include "symbols/kernel_symbols.h"

namespace dcpi {
namespace {

constexpr std::chrono::milliseconds kStubTimeout{10'000};

// The database epoch of the run's first guest epoch (the guest starts at 0).
uint64_t choose_epoch_base(const RunRequest& options) {
  if (options.epoch) return *options.epoch;
  if (!std::filesystem::exists(options.database / "FORMAT")) return 1;
  const std::vector<uint64_t> epochs = ProfileDatabase::open(options.database).epochs();
  return epochs.empty() ? 1 : epochs.back() + 1;
}

// hostdump's view of the QEMU session: the guest finishes at DCPI-DONE.
class QemuWatch : public GuestWatch {
 public:
  explicit QemuWatch(qemu::QemuSession& session) : session_(session) {}
  bool finished() override { return session_.finished(); }
  void wait(double seconds) override { session_.wait(seconds); }

 private:
  qemu::QemuSession& session_;
};

void print_progress(std::ostream& out, const SessionStats& stats) {
  const double virtual_seconds = double(stats.guest_cycles) / 250e6;
  out << "dcpi run: " << stats.guest_cycles << " guest cycles (" << virtual_seconds
      << " s virtual), " << stats.totals.samples << " samples stored, "
      << (virtual_seconds > 0 ? double(stats.totals.samples) / virtual_seconds : 0.0)
      << " samples per virtual second\n";
}

// The machine `options` describe, with the kernel command line and, for the
// GDB transport, a stub port (options.gdb_port or a free loopback port).
qemu::MachineConfig run_machine(const RunRequest& options) {
  const RunMachine& wanted = options.machine;
  qemu::MachineConfig machine;
  if (!wanted.qemu_binary.empty()) machine.qemu_binary = wanted.qemu_binary;
  machine.palcode = wanted.palcode;
  machine.kernel = wanted.kernel;
  machine.initrd = wanted.initrd;
  machine.cpus = wanted.cpus;
  machine.memory_mb = wanted.memory_mb;
  machine.plugins = wanted.plugins;
  machine.serial2_port = wanted.serial2_port;
  machine.append = kernel_command_line(options);
  if (options.transport == Transport::kGdb && options.gdb_stub)
    machine.gdb_port = options.gdb_port ? *options.gdb_port : qemu::free_loopback_port();
  else if (options.gdb_port)  // serial transport: the stub is free for a debugger
    machine.gdb_port = options.gdb_port;
  return machine;
}

// Runs the pull loop over `source` while `session` runs the guest.
void pull_until_done(const RunRequest& options, qemu::QemuSession& session, RecordSource& source,
                     ProfileBuilder& builder, ProfileDatabaseWriter& writer, RunResult& result) {
  session.set_stored_note([&result] {
    return std::to_string(result.totals.samples) + " samples pulled before are in the database";
  });
  QemuWatch watch(session);
  SessionOptions loop;
  if (options.transport == Transport::kGdb) {
    loop.wait_seconds = options.pull_interval_seconds;  // merged after every pull
    if (options.progress)
      loop.progress = [&options](const SessionStats& stats) {
        print_progress(*options.progress, stats);
      };
  } else {
    loop.wait_seconds = 0;  // the source's read is the wait
    loop.merge_seconds = options.pull_interval_seconds;
  }
  try {
    run_session(source, watch, builder, writer, loop, result);
  } catch (const std::exception&) {
    session.blame_exit();  // a stub error is usually QEMU dying: say that, it is the cause
    throw;
  }
  // The serial stream also ends when QEMU dies: that is a failure too.
  session.require_finished();
}

// The images this run boots go into the database's catalog (and the build-id
// cache) before the guest starts, in a batch of their own: reports then find
// them with no --images. Failing to record them costs names, never samples,
// so it is a warning.
void record_booted_images(const RunRequest& options, const qemu::MachineConfig& machine,
                          ProfileDatabaseWriter& writer) {
  const BootedImages booted =
      collect_booted_images(machine.palcode, machine.kernel, machine.initrd, options.known_images);
  std::vector<std::string> warnings = booted.warnings;
  writer.begin_batch();
  try {
    writer.record_images(booted.images);
    writer.commit_batch();
  } catch (const ProfileDatabaseError& error) {
    writer.abort_batch();
    warnings.push_back(std::string("images not recorded: ") + error.what());
  }
  if (options.progress)
    for (const std::string& warning : warnings)
      *options.progress << "dcpi run: " << warning << '\n';
}

// "BUILD_ID PATH" per booted image for the truth plugin (its images=), so
// that the truth names the programs it counted (issue 30).
class TruthImageList {
 public:
  TruthImageList(const RunRequest& options, const qemu::MachineConfig& machine)
      : path_(options.truth_images) {
    if (path_.empty()) return;
    const BootedImages booted = collect_booted_images(machine.palcode, machine.kernel,
                                                      machine.initrd, options.known_images);
    std::ofstream out(path_, std::ios::trunc);
    for (const RecordedImage& image : booted.images)
      if (image.guest_path.find_first_of(" \t\n") == std::string::npos)
        out << (image.build_id.empty() ? "-" : image.build_id) << ' ' << image.guest_path << '\n';
    if (!out.flush()) throw std::runtime_error("cannot write " + path_ + " for the truth plugin");
  }
  ~TruthImageList() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove(path_, ignored);
  }
  TruthImageList(const TruthImageList&) = delete;
  TruthImageList& operator=(const TruthImageList&) = delete;

 private:
  std::string path_;
};

// The run itself; `result` is kept current, so a stop signal leaves in it
// what was stored.
void run_until_done(const RunRequest& options, RunResult& result) {
  const qemu::StopSignals stop_signals;  // SIGINT/SIGTERM: store, stop QEMU, say so
  result.epoch_base = choose_epoch_base(options);
  std::unique_ptr<qemu::Com2Listener> com2;
  qemu::MachineConfig machine = run_machine(options);
  if (options.transport == Transport::kSerial) {
    com2 = std::make_unique<qemu::Com2Listener>();
    machine.serial2_port = com2->port();
  }
  qemu::check_machine_config(machine);
  std::optional<uint64_t> ring_address, cycles_address;
  if (options.transport == Transport::kGdb) {
    const ElfSymbols kernel = ElfSymbols::open(machine.kernel);
    ring_address = kernel_symbol_physical(kernel, "dcpi_transfer_ring");
    cycles_address = kernel_symbol_physical(kernel, "dcpi_guest_cycles");
  }
  ProfileDatabaseWriter writer(options.database);  // lock before the guest runs
  if (options.profile) record_booted_images(options, machine, writer);
  ProfileBuilder builder;
  builder.set_epoch_base(result.epoch_base);
  builder.set_machine(options.timing_machine);
  for (const std::string& module : options.value_modules)
    builder.values().add_module(values::load_module(module));

  std::unique_ptr<ChainUnwinder> chains;
  if (options.chain_stack_bytes != 0) {
    chains = std::make_unique<ChainUnwinder>(
        collect_booted_images(machine.palcode, machine.kernel, machine.initrd, options.known_images)
            .images,
        options.chain_stack_bytes,
        options.timing_machine == kMachineQemu ? uint16_t{0} : uint16_t{1});
    builder.set_chain_sink(chains.get());
  }
  const TruthImageList truth_images(options, machine);
  qemu::QemuSession session(machine, options.console, {options.timeout_seconds});
  if (com2) {
    SerialStreamSource source(
        [&com2](double seconds, bool& closed) { return com2->read(seconds, closed); });
    pull_until_done(options, session, source, builder, writer, result);
  } else {
    const std::unique_ptr<GdbClient> client = session.connect_stub([&machine] {
      return std::make_unique<GdbClient>(StubAddress{"127.0.0.1", *machine.gdb_port}, kStubTimeout);
    });
    client->set_physical_memory_mode(true);
    GdbRingSource source(*client, *ring_address, cycles_address);
    pull_until_done(options, session, source, builder, writer, result);
  }
  result.console = session.stop();
  result.host_messages = session.host_messages();
  if (!options.truth_file.empty() && std::filesystem::exists(options.truth_file))
    add_truth_maps(options.truth_file, builder.load_map());
  if (!options.contexts_raw.empty()) store_run_contexts(options, builder, writer, result);
  if (!options.paths_raw.empty()) store_run_paths(options, builder, writer, result);
  if (chains) store_run_chains(*chains, builder, writer, result);
}

}  // namespace

std::string kernel_command_line(const RunRequest& options) {
  if (options.append) return *options.append;
  std::string line = "init=/bin/init script=" + options.script;
  if (!options.profile) line += " profile=0";
  if (!options.values.empty()) line += " values=" + options.values;
  if (!options.values.empty() && !options.value_capture.empty())
    line += " vcapture=" + options.value_capture;
  if (options.chain_stack_bytes != 0)
    line += " chains=" + std::to_string(options.chain_stack_bytes);
  if (options.transport == Transport::kSerial) line += " transport=serial";
  for (size_t i = 0; i < options.outputs.size(); ++i)
    line += (i == 0 ? " output=" : ",") + options.outputs[i];
  if (options.output_terminal || options.error_terminal)  // bit 1 stdout, bit 2 stderr
    line += " tty=" +
            std::to_string((options.output_terminal ? 1 : 0) + (options.error_terminal ? 2 : 0));
  if (options.events != 0) line += " events=" + std::to_string(options.events);
  if (options.events_mux) line += " emux=1";
  if (options.event_kill != 0) line += " ekill=" + std::to_string(options.event_kill);
  if (options.count_events != 0) line += " count=" + std::to_string(options.count_events);
  if (options.profileme != 0) line += " profileme=" + std::to_string(options.profileme);
  if (options.profileme_pair != 0)
    line += " profileme_pair=" + std::to_string(options.profileme_pair);
  if (options.seed != 0) line += " seed=" + std::to_string(options.seed);
  if (options.realtime_seconds != 0)
    line += " realtime=" + std::to_string(options.realtime_seconds);
  if (options.period_base != 0) {
    line += " period=" + std::to_string(options.period_base);
    line += " period_range=" + std::to_string(options.period_range);
  }
  return line;
}

std::vector<std::string> qemu_command_for(const RunRequest& request) {
  const qemu::MachineConfig machine = run_machine(request);
  try {
    qemu::check_machine_config(machine);
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(error.what());  // not a usage error: a file is missing
  }
  return qemu::qemu_command(machine);
}

RunResult run_profiled_workload(const RunRequest& options) {
  RunResult result;
  try {
    run_until_done(options, result);
  } catch (const qemu::Interrupted& stop) {  // stored, QEMU stopped: the caller says so
    result.stop_signal = stop.signal();
    result.stop_reason = stop.what();
  }
  return result;
}

}  // namespace dcpi
