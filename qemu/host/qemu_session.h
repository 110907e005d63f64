// One QEMU run watched to its end, for `dcpi run` (DESIGN §6): start the
// machine, connect to its GDB stub with retries while it boots, watch the
// host channel (host_channel.h: the kernel's and init's messages, which no
// profiled program can forge) for the guest's end marker and a panic, echo
// the console, and give up (with the last console lines) when QEMU dies or
// the run takes too long. What is pulled from the
// guest, and how, is hostdump's business; this class knows only the machine.
#pragma once
#include <chrono>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "qemu/host/host_channel.h"
#include "qemu/host/machine_config.h"
#include "qemu/host/qemu_process.h"
#include "qemu/host/stop_signals.h"

namespace dcpi::qemu {

// The kernel prints it, on a line of its own, once init has exited and the
// driver's final flush is done (kernel/process.cpp): the last records are on
// their way.
inline constexpr std::string_view kDoneMarker = "DCPI-DONE";
// kernel/console.cpp's panic() prints it at the start of a line and halts:
// the run can only time out after it, so it fails at once (issue 18). Both
// markers count only on the host channel (issue 30).
inline constexpr std::string_view kPanicMarker = "panic: ";

struct SessionLimits {
  double timeout_seconds = 900;      // the whole run, boot included
  double stub_connect_seconds = 10;  // QEMU opens its GDB stub soon after start
};

class QemuSession {
 public:
  // Checks `machine` (check_machine_config) and starts QEMU; `console` (may
  // be null) echoes the guest console.
  QemuSession(const MachineConfig& machine, std::ostream* console, SessionLimits limits);

  // Appended to "QEMU died" messages: what is safe despite the failure (for
  // dcpi run: how many samples are already in the database).
  void set_stored_note(std::function<std::string()> note) { stored_note_ = std::move(note); }

  // Calls `connect` until it returns, retrying while QEMU boots; throws (with
  // the console) if QEMU exits or the stub does not answer in time.
  template <typename Connect>
  auto connect_stub(Connect connect) -> decltype(connect());

  // True once the host channel has shown kDoneMarker.
  bool finished();
  // Lets the guest run: reads the console for up to `seconds` (0: what is
  // there), returning early at kDoneMarker; throws std::runtime_error if
  // QEMU has exited, the guest panicked or the run has passed its timeout,
  // and Interrupted if a StopSignals signal arrived.
  void wait(double seconds);
  // After the transport has ended: throws unless the guest finished (the
  // serial stream also ends when QEMU dies).
  void require_finished();
  // After an error elsewhere (a stub error is usually QEMU dying): throws
  // the QEMU exit instead if QEMU ends within a second; returns otherwise.
  void blame_exit();
  // Reads the last console output, stops QEMU and returns the whole console.
  std::string stop();
  // Everything the kernel and init sent the host (read_workload_outcome's input).
  const std::string& host_messages() { return channel_.read(); }

  [[noreturn]] void fail(const std::string& what);

 private:
  [[noreturn]] void fail_exited(const std::string& when);
  void check_signals_and_panic();

  HostChannel channel_;  // before process_: QEMU's argv names its file
  QemuProcess process_;
  SessionLimits limits_;
  std::chrono::steady_clock::time_point start_;
  std::function<std::string()> stored_note_;
  size_t searched_ = 0;        // host channel bytes already searched for kDoneMarker
  size_t panic_searched_ = 0;  // and for kPanicMarker
  bool finished_ = false;
  bool plugins_loaded_ = false;
  // A plugin's exit callback writes its whole table (the EV5 truth of a
  // large run: a few seconds); QEMU is killed if it takes longer.
  static constexpr double kPluginExitSeconds = 120;
};

template <typename Connect>
auto QemuSession::connect_stub(Connect connect) -> decltype(connect()) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(limits_.stub_connect_seconds);
  for (;;) {
    StopSignals::check();
    try {
      return connect();
    } catch (const std::exception& error) {
      StopSignals::check();
      if (!process_.running()) fail_exited("before its GDB stub answered");
      if (std::chrono::steady_clock::now() > deadline)
        fail(std::string("QEMU's GDB stub did not answer: ") + error.what());
      process_.pump(0.05);
    }
  }
}

}  // namespace dcpi::qemu
