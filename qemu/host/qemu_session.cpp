#include "qemu/host/qemu_session.h"

#include <algorithm>

namespace dcpi::qemu {
namespace {

using Clock = std::chrono::steady_clock;

std::string last_lines(const std::string& text, size_t lines) {
  size_t start = text.size();
  if (start > 0 && text[start - 1] == '\n') --start;  // the final newline ends the last line
  for (size_t n = 0; n < lines && start > 0; ++n) {
    const size_t newline = text.rfind('\n', start - 1);
    start = newline == std::string::npos ? 0 : newline;
  }
  return text.substr(start > 0 ? start + 1 : 0);
}

std::vector<std::string> command_with(const MachineConfig& machine, const HostChannel& channel) {
  check_machine_config(machine);
  MachineConfig with_channel = machine;
  // The kernel writes COM3 only when told it is there (kernel/uart.h).
  with_channel.append += with_channel.append.empty() ? "host=com3" : " host=com3";
  std::vector<std::string> argv = qemu_command(with_channel);
  const std::vector<std::string> more = channel.qemu_arguments();
  argv.insert(argv.end(), more.begin(), more.end());
  return argv;
}

// Where a search that stopped at `searched` resumes: a line start may be
// one byte before it, a marker cut by the previous read a few more.
size_t resume_at(size_t searched, size_t marker) {
  return searched > marker + 1 ? searched - marker - 1 : 0;
}

}  // namespace

QemuSession::QemuSession(const MachineConfig& machine, std::ostream* console, SessionLimits limits)
    : process_(command_with(machine, channel_), console),
      limits_(limits),
      start_(Clock::now()),
      plugins_loaded_(!machine.plugins.empty()) {}

bool QemuSession::finished() {
  if (finished_) return true;
  const std::string& text = channel_.read();
  finished_ = find_line(text, kDoneMarker, true, resume_at(searched_, kDoneMarker.size()));
  searched_ = text.size();
  return finished_;
}

// A signal comes first: Ctrl-C also reaches QEMU, whose exit is its effect.
void QemuSession::check_signals_and_panic() {
  StopSignals::check();
  const std::string& text = channel_.read();
  size_t at = 0;
  const bool panicked =
      find_line(text, kPanicMarker, false, resume_at(panic_searched_, kPanicMarker.size()), &at);
  panic_searched_ = text.size();
  if (!panicked) return;
  const size_t end = text.find('\n', at);
  const std::string why =
      text.substr(at + kPanicMarker.size(),
                  end == std::string::npos ? std::string::npos : end - at - kPanicMarker.size());
  const std::string note = stored_note_ ? " (" + stored_note_() + ")" : "";
  fail("the guest kernel panicked: " + why + note);
}

void QemuSession::wait(double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  do {
    process_.pump(std::min(0.05, std::max(0.0, seconds)));
  } while (!finished() && process_.running() && Clock::now() < deadline);
  check_signals_and_panic();
  if (!process_.running()) fail_exited("before the workload finished");
  if (std::chrono::duration<double>(Clock::now() - start_).count() > limits_.timeout_seconds)
    fail("the workload did not finish within " + std::to_string(int(limits_.timeout_seconds)) +
         " s");
}

void QemuSession::blame_exit() {
  StopSignals::check();
  if (process_.wait_exit(1.0)) fail_exited("before the workload finished");
  check_signals_and_panic();
}

void QemuSession::require_finished() {
  process_.pump(0);
  if (finished()) return;
  blame_exit();
  fail("the transport ended before the workload finished (no " + std::string(kDoneMarker) + ")");
}

std::string QemuSession::stop() {
  process_.pump(0.1);
  channel_.read();
  std::string console = process_.console();
  // TCG plugins (the ground truth, the EV5 model) write their files when
  // QEMU exits normally, which SIGKILL would prevent.
  if (plugins_loaded_)
    process_.terminate(kPluginExitSeconds);
  else
    process_.kill();
  return console;
}

void QemuSession::fail(const std::string& what) {
  process_.pump(0.2);
  throw std::runtime_error(what + "; last console lines:\n" + last_lines(process_.console(), 6));
}

// A panic halts the machine, and QEMU exits: the panic is the reason.
void QemuSession::fail_exited(const std::string& when) {
  process_.pump(0.2);
  panic_searched_ = 0;
  check_signals_and_panic();
  const std::string note = stored_note_ ? " (" + stored_note_() + ")" : "";
  fail("QEMU " + process_.exit_description() + " " + when + note);
}

}  // namespace dcpi::qemu
