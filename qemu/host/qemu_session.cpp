#include "qemu/host/qemu_session.h"

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

const MachineConfig& checked(const MachineConfig& machine) {
  check_machine_config(machine);
  return machine;
}

}  // namespace

QemuSession::QemuSession(const MachineConfig& machine, std::ostream* console, SessionLimits limits)
    : process_(qemu_command(checked(machine)), console),
      limits_(limits),
      start_(Clock::now()),
      plugins_loaded_(!machine.plugins.empty()) {}

bool QemuSession::finished() {
  if (finished_) return true;
  const std::string& console = process_.console();
  const size_t from = searched_ >= kDoneMarker.size() ? searched_ - kDoneMarker.size() + 1 : 0;
  finished_ = console.find(kDoneMarker, from) != std::string::npos;
  searched_ = console.size();
  return finished_;
}

// A signal comes first: Ctrl-C also reaches QEMU, whose exit is its effect.
void QemuSession::check_signals_and_panic() {
  StopSignals::check();
  const std::string& console = process_.console();
  const size_t from =
      panic_searched_ >= kPanicMarker.size() ? panic_searched_ - kPanicMarker.size() : 0;
  const size_t at = console.find(kPanicMarker, from);
  panic_searched_ = console.size();
  if (at == std::string::npos || (at > 0 && console[at - 1] != '\n')) return;
  const std::string note = stored_note_ ? " (" + stored_note_() + ")" : "";
  fail("the guest kernel panicked" + note);
}

void QemuSession::wait(double seconds) {
  if (seconds > 0)
    process_.wait_for(kDoneMarker, seconds);
  else
    process_.pump(0);
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
