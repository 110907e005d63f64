// `dcpi run [OPTIONS] -- PROGRAM [ARGS...]` (issue 15): profile one's own
// Alpha Linux program like `perf record ./a.out`. The program, its loader and
// libraries and the --file data go into a fresh initrd beside the bundled
// workloads (qemu/bundle/); dcpi run exits with the program's status. A mix
// that brings its own programs (the real mix) is bundled the same way.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "hostdump/run/profiled_run.h"

namespace dcpi {

namespace qemu {
struct ProgramBundle;
}

struct ProgramCommand {
  std::vector<std::vector<std::string>> programs;  // PROGRAM ARGS... for each -- group
  std::vector<std::string> files;                  // --file HOST[:GUEST]
  std::vector<std::string> lib_paths;              // --lib-path DIR (before the sysroot)
  std::vector<std::string> environment;            // --env NAME=VALUE (NAME: the host's value)
};

// A bundle's initrd written to a temporary file, removed when this goes.
class BundledInitrd {
 public:
  // The programs of `command`, their libraries and data on top of `base_initrd`.
  // Throws std::runtime_error naming what cannot be bundled.
  // `memory_mb` is the guest's: no --file may be larger than it can hold.
  // `shell` (may be empty) goes in as /bin/sh (shell_for_build).
  static std::unique_ptr<BundledInitrd> for_programs(const ProgramCommand& command,
                                                     const std::filesystem::path& base_initrd,
                                                     uint32_t memory_mb,
                                                     const std::filesystem::path& shell);

  // A mix that is not built with the workloads brings its programs in
  // <build>/mixes/NAME (the real mix: toolchain/build-real-programs.sh,
  // linked there by the build): bin/* become /bin/*, with their loader and
  // libraries (lib/ first, then the cross sysroot), and every file under etc/
  // the same path in the guest. nullptr for a mix without such a directory.
  static std::unique_ptr<BundledInitrd> for_mix(const std::filesystem::path& build,
                                                const std::string& mix,
                                                const std::filesystem::path& base_initrd,
                                                uint32_t memory_mb);

  explicit BundledInitrd(const qemu::ProgramBundle& bundle);
  ~BundledInitrd();
  BundledInitrd(const BundledInitrd&) = delete;
  BundledInitrd& operator=(const BundledInitrd&) = delete;

  // Boots `request` with this initrd and its mix, and records the bundled
  // images with their host files.
  void apply_to(RunRequest& request) const;
  const std::filesystem::path& path() const { return path_; }
  // "/bin/NAME" of the -- PROGRAMs, in the order they run; empty for a mix.
  const std::vector<std::string>& guest_programs() const { return guest_programs_; }
  // "ARGUMENT -> /GUEST" for each program argument that named a host file
  // (qemu::ProgramBundle::argument_files).
  const std::vector<std::string>& argument_files() const { return argument_files_; }

 private:
  std::filesystem::path path_;
  std::string script_;
  std::vector<std::string> guest_programs_;
  std::vector<std::string> argument_files_;
  std::vector<std::pair<std::string, std::string>> images_;  // (host file, guest path)
};

// The guest's /bin/sh for system() and popen() (issue 29): the real mix's
// dash, <build>/mixes/real/bin/dash, when the build made it
// (toolchain/build-real-programs.sh); empty when not.
std::filesystem::path shell_for_build(const std::filesystem::path& build);

// dcpi run's exit status for the programs from what init sent the host
// (RunResult::host_messages, never the console a program can write to): the first
// failure's exit code, 128 + the signal that killed it, or 1 when it never
// ran; 0 if all exited 0. Writes one line to `report` per failed program.
int programs_exit_status(const std::string& host_messages,
                         const std::vector<std::string>& guest_programs, std::ostream& report);

}  // namespace dcpi
