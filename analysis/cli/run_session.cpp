#include "analysis/cli/run_session.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "analysis/symbols/elf_symbols.h"
#include "analysis/symbols/kernel_symbols.h"
#include "hostdump/profiledb/profile_db.h"
#include "hostdump/values/customization_module.h"
#include "hostdump/gdb/gdb_client.h"
#include "hostdump/ingest.h"
#include "hostdump/profiledb/profile_db_writer.h"
#include "hostdump/ring_puller.h"
#include "qemu/qemu_process.h"

namespace dcpi {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::string_view kDoneMarker = "DCPI-DONE";
constexpr std::chrono::milliseconds kStubTimeout{10'000};
constexpr double kStubConnectSeconds = 10;
constexpr double kProgressEverySeconds = 2;

// A TCP socket bound to a free 127.0.0.1 port (the kernel picks it); throws
// std::runtime_error naming `what` the port is for.
int bind_loopback(uint16_t& port, const char* what) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const std::string reason = std::strerror(errno);
    if (fd >= 0) close(fd);
    throw std::runtime_error(std::string("no free loopback port for ") + what + ": " + reason);
  }
  port = ntohs(address.sin_port);
  return fd;
}

uint16_t free_loopback_port() {
  uint16_t port = 0;
  close(bind_loopback(port, "QEMU's GDB stub"));
  return port;
}

// The database epoch of the run's first guest epoch (the guest starts at 0).
uint64_t choose_epoch_base(const RunOptions& options) {
  if (options.epoch) return *options.epoch;
  if (!std::filesystem::exists(options.database / "FORMAT")) return 1;
  const std::vector<uint64_t> epochs = ProfileDatabase::open(options.database).epochs();
  return epochs.empty() ? 1 : epochs.back() + 1;
}

std::string last_lines(const std::string& text, size_t lines) {
  size_t start = text.size();
  if (start > 0 && text[start - 1] == '\n') --start;  // the final newline ends the last line
  for (size_t n = 0; n < lines && start > 0; ++n) {
    const size_t newline = text.rfind('\n', start - 1);
    start = newline == std::string::npos ? 0 : newline;
  }
  return text.substr(start > 0 ? start + 1 : 0);
}

[[noreturn]] void fail_with_console(const std::string& what, qemu::QemuProcess& qemu) {
  qemu.pump(0.2);
  throw std::runtime_error(what + "; last console lines:\n" + last_lines(qemu.console(), 6));
}

// QEMU ended before DCPI-DONE; what was stored before stays stored.
[[noreturn]] void fail_qemu_died(qemu::QemuProcess& qemu, uint64_t samples_stored) {
  fail_with_console("QEMU " + qemu.exit_description() + " before the workload finished (" +
                        std::to_string(samples_stored) +
                        " samples pulled before are in the database)",
                    qemu);
}

std::unique_ptr<GdbClient> connect_stub(uint16_t port, qemu::QemuProcess& qemu) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(kStubConnectSeconds);
  for (;;) {
    try {
      return std::make_unique<GdbClient>(StubAddress{"127.0.0.1", port}, kStubTimeout);
    } catch (const std::exception& error) {
      if (!qemu.running())
        fail_with_console("QEMU " + qemu.exit_description() + " before its GDB stub answered",
                          qemu);
      if (Clock::now() > deadline)
        fail_with_console(std::string("QEMU's GDB stub did not answer: ") + error.what(), qemu);
      qemu.pump(0.05);
    }
  }
}

uint64_t read_u64(GdbClient& client, uint64_t physical_address) {
  const std::vector<uint8_t> bytes = client.read_memory(physical_address, 8);
  uint64_t value = 0;
  std::memcpy(&value, bytes.data(), sizeof value);
  return value;
}

void pull_until_done(const RunOptions& options, qemu::QemuProcess& qemu, GdbClient& stub,
                     RingPuller& puller, uint64_t cycles_address, ProfileBuilder& builder,
                     ProfileDatabaseWriter& writer, RunResult& result) {
  const auto start = Clock::now();
  auto last_progress = start;
  bool done = false;
  for (;;) {
    const RingPull pull = puller.pull();  // the VM is stopped here
    ingest_pull(pull, builder);
    builder.flush(writer);  // nothing waits in memory: a crash loses nothing pulled
    ++result.pulls;
    result.guest_cycles = read_u64(stub, cycles_address);
    result.totals = builder.totals();
    result.decode = puller.total_stats();
    result.ring_records_dropped = pull.header.records_dropped;
    result.ring_samples_dropped = pull.header.samples_dropped;
    if (options.progress && (done || Clock::now() - last_progress >
                                         std::chrono::duration<double>(kProgressEverySeconds))) {
      last_progress = Clock::now();
      const double virtual_seconds = double(result.guest_cycles) / 250e6;
      *options.progress << "dcpi run: " << result.guest_cycles << " guest cycles ("
                        << virtual_seconds << " s virtual), " << result.totals.samples
                        << " samples stored, "
                        << (virtual_seconds > 0 ? double(result.totals.samples) / virtual_seconds
                                                : 0.0)
                        << " samples per virtual second\n";
    }
    if (done) break;
    stub.resume();
    const bool finished = qemu.wait_for(kDoneMarker, options.pull_interval_seconds);
    if (!qemu.running()) fail_qemu_died(qemu, result.totals.samples);
    if (std::chrono::duration<double>(Clock::now() - start).count() > options.timeout_seconds)
      fail_with_console("the workload did not finish within " +
                            std::to_string(int(options.timeout_seconds)) + " s",
                        qemu);
    stub.interrupt();
    done = finished;
  }
}

// The serial transport: QEMU's COM2 connects to our listener and the guest's
// daemon sends every record there (docs/transfer-format.md, serial framing).
class SerialListener {
 public:
  SerialListener() {
    listen_fd_ = bind_loopback(port_, "COM2");
    if (listen(listen_fd_, 1) != 0) {
      const std::string reason = std::strerror(errno);
      close(listen_fd_);  // the destructor does not run for a throwing constructor
      throw std::runtime_error("cannot listen for COM2: " + reason);
    }
  }
  ~SerialListener() {
    if (fd_ >= 0) close(fd_);
    if (listen_fd_ >= 0) close(listen_fd_);
  }
  uint16_t port() const { return port_; }
  // Waits up to `seconds` for bytes (accepting QEMU's connection first);
  // returns them, empty on timeout, and sets `closed` at end of stream.
  std::vector<uint8_t> read(double seconds, bool& closed) {
    pollfd p{fd_ >= 0 ? fd_ : listen_fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(seconds * 1000)) <= 0) return {};
    if (fd_ < 0) {
      fd_ = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      return {};
    }
    std::vector<uint8_t> bytes(1 << 16);
    const ssize_t n = ::read(fd_, bytes.data(), bytes.size());
    closed = n <= 0;
    bytes.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return bytes;
  }

 private:
  int listen_fd_ = -1;
  int fd_ = -1;
  uint16_t port_ = 0;
};

RunResult& run_over_serial(const RunOptions& options, RunResult& result) {
  result.epoch_base = choose_epoch_base(options);
  SerialListener listener;
  qemu::MachineConfig machine = options.machine;
  machine.append = kernel_command_line(options);
  machine.serial2_port = listener.port();
  qemu::check_machine_config(machine);
  ProfileDatabaseWriter writer(options.database);
  ProfileBuilder builder;
  builder.set_epoch_base(result.epoch_base);
  for (const std::string& module : options.value_modules)
    builder.values().add_module(values::load_module(module));
  StreamDecoder decoder;
  qemu::QemuProcess qemu(qemu::qemu_command(machine), options.console);
  const auto start = Clock::now();
  bool done = false, closed = false;
  auto quiet_since = Clock::now();
  auto last_merge = Clock::now();
  while (!closed) {
    const std::vector<uint8_t> bytes = listener.read(0.05, closed);
    for (const TransferRecord& record : decoder.feed(bytes)) builder.add_record(record);
    if (!bytes.empty()) {
      ++result.pulls;
      quiet_since = Clock::now();
    }
    // Merged about every interval: little waits in memory, few rewrites.
    if (Clock::now() - last_merge > std::chrono::duration<double>(options.pull_interval_seconds)) {
      builder.flush(writer);
      last_merge = Clock::now();
    }
    qemu.pump(0);
    if (!done && qemu.console().find(kDoneMarker) != std::string::npos) {
      done = true;
      // The console and COM2 are separate channels and QEMU may still be
      // sending COM2's last bytes: the quiet period starts no earlier than now.
      quiet_since = Clock::now();
    }
    // After DCPI-DONE the final flush is on its way; stop once the line is quiet.
    if (done && Clock::now() - quiet_since > std::chrono::seconds(1)) break;
    if (!qemu.running() ||
        std::chrono::duration<double>(Clock::now() - start).count() > options.timeout_seconds) {
      builder.flush(writer);
      if (!qemu.running()) fail_qemu_died(qemu, builder.totals().samples);
      fail_with_console("the workload did not finish in time", qemu);
    }
  }
  for (const TransferRecord& record : decoder.finish()) builder.add_record(record);
  builder.add_decode_stats(decoder.stats());
  builder.flush(writer);
  result.totals = builder.totals();
  result.decode = decoder.stats();
  result.console = qemu.console();
  qemu.kill();
  return result;
}

}  // namespace

std::string kernel_command_line(const RunOptions& options) {
  std::string line = "init=/bin/init script=" + options.script;
  if (!options.profile) line += " profile=0";
  if (!options.values.empty()) line += " values=" + options.values;
  if (!options.values.empty() && !options.value_capture.empty())
    line += " vcapture=" + options.value_capture;
  if (options.transport == Transport::kSerial) line += " transport=serial";
  if (options.period_base != 0) {
    line += " period=" + std::to_string(options.period_base);
    line += " period_range=" + std::to_string(options.period_range);
  }
  return line;
}

RunResult run_profiled_workload(const RunOptions& options, RunResult* partial) {
  RunResult local;
  RunResult& result = partial ? *partial : local;
  if (options.transport == Transport::kSerial) return run_over_serial(options, result);
  result.epoch_base = choose_epoch_base(options);
  qemu::MachineConfig machine = options.machine;
  machine.append = kernel_command_line(options);
  machine.gdb_port = options.gdb_port ? *options.gdb_port : free_loopback_port();
  qemu::check_machine_config(machine);
  const ElfSymbols kernel = ElfSymbols::open(machine.kernel);
  const uint64_t ring_address = kernel_symbol_physical(kernel, "dcpi_transfer_ring");
  const uint64_t cycles_address = kernel_symbol_physical(kernel, "dcpi_guest_cycles");

  ProfileDatabaseWriter writer(options.database);  // lock before the guest runs
  ProfileBuilder builder;
  builder.set_epoch_base(result.epoch_base);
  for (const std::string& module : options.value_modules)
    builder.values().add_module(values::load_module(module));
  qemu::QemuProcess qemu(qemu::qemu_command(machine), options.console);
  std::unique_ptr<GdbClient> client = connect_stub(*machine.gdb_port, qemu);
  client->set_physical_memory_mode(true);
  RingPuller puller(*client, ring_address);

  try {
    pull_until_done(options, qemu, *client, puller, cycles_address, builder, writer, result);
  } catch (const std::exception& error) {
    // A stub error is usually QEMU dying: say that, it is the cause.
    if (qemu.wait_exit(1.0)) fail_qemu_died(qemu, result.totals.samples);
    throw;
  }
  qemu.pump(0.1);
  result.console = qemu.console();
  qemu.kill();
  return result;
}

}  // namespace dcpi
