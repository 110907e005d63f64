// `dcpi run -- PROGRAM [ARGS...]` (issue 15): an initrd holding the bundled
// workloads (init and its mixes), the program, what it needs to run (its
// PT_INTERP dynamic loader and its DT_NEEDED shared libraries, resolved in
// the cross sysroot like the loader would) and the user's data files, plus a
// one-line mix that runs it. Like perf record ./a.out, for the Alpha.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "qemu/bundle/cpio_archive.h"

namespace dcpi::qemu {

inline const std::filesystem::path kAlphaSysrootLib = "/usr/alpha-linux-gnu/lib";

struct ProgramInvocation {
  std::filesystem::path program;       // an Alpha Linux executable on the host
  std::vector<std::string> arguments;  // its argv[1...]
};

struct ProgramRequest {
  std::vector<ProgramInvocation> programs;  // run one after the other
  std::vector<std::string> files;           // HOST[:GUEST] data files (GUEST default /data/NAME)
  std::filesystem::path base_initrd;        // the workloads' initrd: init and the mixes
  std::vector<std::filesystem::path> library_path = {kAlphaSysrootLib};
  // The guest's memory: no --file may be larger than what it leaves beside
  // the kernel (firmware/memory_map.h); 0: no bound.
  uint64_t guest_memory_bytes = 0;
  // An Alpha shell for /bin/sh (the real mix's dash), with its loader and
  // libraries, not run: glibc's system() and popen() exec "/bin/sh -c".
  // Empty: none. A program called `sh` takes /bin/sh itself.
  std::filesystem::path shell;
  // NAME=VALUE: the programs' environment beyond a root login's
  // (qemu/bundle/guest_environment.h).
  std::vector<std::string> environment;
  // The C.UTF-8 locale a Debian system has (libc-bin's
  // /usr/lib/locale/C.utf8): copied to the same guest path when the host
  // has it, so setlocale(LC_ALL, "C.UTF-8") works as on Linux (qemu-alpha
  // reads the host's). Empty: none.
  std::filesystem::path locale = "/usr/lib/locale/C.utf8";
};

// init reads its script with fgets into 512 bytes: a longer line would be
// cut and its rest run as a command of its own (workloads/init.c), so the
// bundler refuses one, as init does.
inline constexpr size_t kMaxMixLineBytes = 510;  // without the newline

// An image the run puts in the guest: where its ELF is on the host, so the
// reports can find its symbols.
struct BundledImage {
  std::filesystem::path host;
  std::string guest;  // "/bin/a.out", "/lib/libc.so.6.1"
};

struct ProgramBundle {
  std::string archive;                      // the initrd, cpio newc
  std::string script;                       // the mix init runs: "/etc/program.mix"
  std::vector<std::string> guest_programs;  // "/bin/NAME", in the order they run
  std::vector<BundledImage> images;
  // Program arguments that name a host file, put in the guest at the path
  // the argument names from "/" (the programs' working directory), so that
  // `dcpi run -- ./a.out input.txt` opens it as `perf record` would: "input.txt
  // -> /input.txt". Not over a file the bundle holds (then left out).
  std::vector<std::string> argument_files;
};

// Throws std::runtime_error with one line naming the problem: not an Alpha
// executable, a missing interpreter or library, a static glibc program that
// cannot start (docs/linux-programs.md), an ELF a loader cannot read, an
// argument init cannot pass, a --file that is not a regular file, too large
// for the guest, or that would replace a file the bundle holds.
ProgramBundle bundle_program(const ProgramRequest& request);

}  // namespace dcpi::qemu
