// A running QEMU: started with fork and exec (it dies with dcpi, even by
// SIGKILL: PR_SET_PDEATHSIG), its console (COM1 on stdio) read
// through a pipe into memory and optionally echoed and logged. Destroying it
// kills QEMU, so a failing `dcpi run` never leaves a machine behind.
#pragma once
#include <sys/types.h>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace dcpi::qemu {

class QemuProcess {
 public:
  // Throws std::runtime_error if QEMU cannot be started. `echo` (may be
  // null) receives the console text as it arrives.
  QemuProcess(const std::vector<std::string>& argv, std::ostream* echo);
  ~QemuProcess();
  QemuProcess(const QemuProcess&) = delete;
  QemuProcess& operator=(const QemuProcess&) = delete;

  // Reads console output until `marker` has appeared (true), QEMU exits or
  // `seconds` pass (false). Markers already seen count.
  bool wait_for(std::string_view marker, double seconds);
  // Reads whatever console output arrives within `seconds`.
  void pump(double seconds);
  bool running();
  // Reads the console until QEMU exits (true) or `seconds` pass (false).
  bool wait_exit(double seconds);
  // "exited with status N" / "killed by signal N"; empty while running.
  std::string exit_description();
  const std::string& console() const { return console_; }
  void kill();
  // SIGTERM, then up to `seconds` for QEMU to exit on its own (plugins write
  // their files at exit), then SIGKILL.
  void terminate(double seconds);

 private:
  void reap(bool block);

  pid_t pid_ = -1;
  int console_fd_ = -1;
  std::ostream* echo_;
  std::string console_;
  std::optional<int> wait_status_;
};

}  // namespace dcpi::qemu
