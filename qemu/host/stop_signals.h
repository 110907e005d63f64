// SIGINT, SIGTERM and SIGHUP while `dcpi run` has a QEMU: instead of dying
// at once (which used to leave QEMU running with its GDB stub open), the
// signal is noted and the run stops at its next check — it stores what was
// pulled, stops QEMU and says so (issue 18). SIGKILL cannot be caught: for it
// QemuProcess asks the kernel to kill QEMU with its parent (PR_SET_PDEATHSIG).
#pragma once
#include <csignal>
#include <stdexcept>
#include <string>

namespace dcpi::qemu {

// The run was stopped by a signal; `signal()` is its number.
class Interrupted : public std::runtime_error {
 public:
  Interrupted(int signal, const std::string& what) : std::runtime_error(what), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

// Installs the handlers for its lifetime and restores the previous ones.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The signal received since construction, 0 if none.
  static int received();
  // Throws Interrupted (with `note` appended) if a signal was received.
  static void check(const std::string& note = "");

 private:
  struct sigaction previous_[3]{};
};

// "SIGTERM" for 15 and so on.
std::string signal_name(int signal);

}  // namespace dcpi::qemu
