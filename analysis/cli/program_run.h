// `dcpi run [OPTIONS] -- PROGRAM [ARGS...]` (issue 15): profile one's own
// Alpha Linux program like `perf record ./a.out`. The program, its loader and
// libraries and the --file data go into a fresh initrd beside the bundled
// workloads; dcpi run exits with the program's status.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "qemu/bundle/program_bundle.h"

namespace dcpi {

struct ProgramCommand {
  std::vector<std::vector<std::string>> programs;  // PROGRAM ARGS... for each -- group
  std::vector<std::string> files;                  // --file HOST[:GUEST]
  std::vector<std::string> lib_paths;              // --lib-path DIR (before the sysroot)
};

// Splits `arguments` at "--": dcpi's own options stay in `arguments`; the
// programs and their arguments (one per "--" group; they run one after the
// other) and every --file/--lib-path go to the result.
std::optional<ProgramCommand> take_program_command(std::vector<std::string>& arguments);

// The program, its libraries and data on top of the base initrd.
qemu::ProgramBundle bundle_command(const ProgramCommand& command,
                                   const std::filesystem::path& base_initrd);

// A mix that is not built with the workloads brings its programs in
// <build>/mixes/NAME (the real mix: toolchain/build-real-programs.sh, linked
// there by the build): bin/* become /bin/*, with their loader and libraries
// (lib/ first, then the cross sysroot), and every file under etc/ the same
// path in the guest. nullopt for a mix without such a directory.
std::optional<qemu::ProgramBundle> bundle_mix_programs(const std::filesystem::path& build,
                                                       const std::string& mix,
                                                       const std::filesystem::path& base_initrd);

// A bundle's initrd written to a temporary file, removed when this goes.
class BundledInitrd {
 public:
  explicit BundledInitrd(qemu::ProgramBundle bundle);
  ~BundledInitrd();
  BundledInitrd(const BundledInitrd&) = delete;
  BundledInitrd& operator=(const BundledInitrd&) = delete;

  const std::filesystem::path& path() const { return path_; }
  const qemu::ProgramBundle& bundle() const { return bundle_; }

 private:
  qemu::ProgramBundle bundle_;
  std::filesystem::path path_;
};

// dcpi run's exit status for the programs from what init printed: the first
// failure's exit code, 128 + the signal that killed it, or 1 when it never
// ran; 0 if all exited 0. Writes one line to `report` per failed program.
int programs_exit_status(const std::string& console, const std::vector<std::string>& guest_programs,
                         std::ostream& report);

}  // namespace dcpi
