// How QEMU is started for DCPI, for the host tools (dcpi run). DESIGN §3:
// clipper (DP264/Typhoon), our PALcode as -bios, our kernel as -kernel, an
// initrd of workloads, and `-icount shift=2,sleep=off` so every guest
// instruction advances virtual time by exactly 4 ns. The Python tests get
// this same argv from `dcpi run --print-qemu-command` (tests/support/qemu_run.py).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "firmware/memory_map.h"

namespace dcpi::qemu {

inline constexpr const char* kQemuBinary = "qemu-system-alpha";
using dcpi::kMaxCpus;  // clipper: up to 4 CPUs (firmware/memory_map.h)

struct MachineConfig {
  // The emulator: Debian's (kQemuBinary on PATH) for machine `qemu`, our
  // patched build for `ev5` (qemu/machine/build-qemu.sh, docs/ev5-machine.md).
  std::string qemu_binary = kQemuBinary;
  std::string palcode;
  std::string kernel;
  std::string initrd;  // empty: none
  uint32_t cpus = 1;
  uint32_t memory_mb = 256;
  std::string append;                    // kernel command line
  std::optional<uint16_t> gdb_port;      // -gdb tcp:127.0.0.1:PORT (QEMU listens)
  std::optional<uint16_t> serial2_port;  // COM2 connects to tcp:127.0.0.1:PORT (we listen)
  std::vector<std::string> plugins;      // -plugin arguments (TCG plugins)
};

// Throws std::invalid_argument naming the problem (CPU count, missing file,
// not an Alpha ELF) before QEMU is started.
void check_machine_config(const MachineConfig& config);

// Throws std::invalid_argument unless an initrd of that file's size fits in
// `memory_mb` beside the kernel (QEMU puts it at the top of memory and does
// not load one that is larger); the message says which --memory would do.
void check_initrd_fits(const std::string& initrd, uint32_t memory_mb);

// argv for execvp; argv[0] is config.qemu_binary. COM1 is the console on stdio.
std::vector<std::string> qemu_command(const MachineConfig& config);

}  // namespace dcpi::qemu
