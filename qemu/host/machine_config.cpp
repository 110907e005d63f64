#include "qemu/host/machine_config.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace dcpi::qemu {
namespace {

void check_alpha_elf(const std::string& path, const std::string& role) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::invalid_argument(role + " not found or unreadable: " + path);
  unsigned char header[20] = {};
  file.read(reinterpret_cast<char*>(header), sizeof header);
  constexpr unsigned kEmAlpha = 0x9026;  // QEMU's and binutils' EM_ALPHA
  const bool elf = file.gcount() == sizeof header && header[0] == 0x7f && header[1] == 'E' &&
                   header[2] == 'L' && header[3] == 'F';
  if (!elf || (header[18] | header[19] << 8) != kEmAlpha)
    throw std::invalid_argument(role + " is not an Alpha ELF file: " + path);
}

std::string loopback(uint16_t port) { return "tcp:127.0.0.1:" + std::to_string(port); }

}  // namespace

// QEMU puts the initrd at the top of memory and does not load one that is
// larger (the guest then finds nothing, issue 30); one that reaches down
// over the kernel overwrites it. Either way: say so before boot.
void check_initrd_fits(const std::string& initrd, uint32_t memory_mb) {
  std::error_code error;
  const uint64_t bytes = std::filesystem::file_size(initrd, error);
  if (error) throw std::invalid_argument("initrd is not a regular file: " + initrd);
  const uint64_t needed = bytes + kGuestMemoryBesideInitrd;
  if (needed <= uint64_t{memory_mb} << 20) return;
  const uint64_t needed_mb = (needed + (1 << 20) - 1) >> 20;
  throw std::invalid_argument("the initrd " + initrd + " (" + std::to_string(bytes >> 20) +
                              " MB) does not fit in " + std::to_string(memory_mb) +
                              " MB of guest memory beside the kernel: it needs --memory " +
                              std::to_string(needed_mb) + " or more");
}

void check_machine_config(const MachineConfig& config) {
  if (config.cpus < 1 || config.cpus > kMaxCpus)
    throw std::invalid_argument("clipper has 1 to 4 CPUs, not " + std::to_string(config.cpus));
  if (config.memory_mb < 64) throw std::invalid_argument("at least 64 MB of guest memory needed");
  check_alpha_elf(config.palcode, "PALcode (-bios)");
  check_alpha_elf(config.kernel, "kernel (-kernel)");
  if (!config.initrd.empty() && !std::ifstream(config.initrd))
    throw std::invalid_argument("initrd not found or unreadable: " + config.initrd);
  if (!config.initrd.empty()) check_initrd_fits(config.initrd, config.memory_mb);
}

std::vector<std::string> qemu_command(const MachineConfig& config) {
  std::vector<std::string> argv = {
      config.qemu_binary, "-M", "clipper", "-smp", std::to_string(config.cpus), "-m",
      std::to_string(config.memory_mb),
      // DESIGN §3: one instruction = 4 ns of virtual time, deterministic.
      "-icount", "shift=2,sleep=off", "-vga", "none", "-nic", "none", "-display", "none",
      "-monitor", "none", "-serial", "stdio", "-no-reboot", "-bios", config.palcode, "-kernel",
      config.kernel};
  if (config.serial2_port) argv.insert(argv.end(), {"-serial", loopback(*config.serial2_port)});
  if (!config.initrd.empty()) argv.insert(argv.end(), {"-initrd", config.initrd});
  if (!config.append.empty()) argv.insert(argv.end(), {"-append", config.append});
  if (config.gdb_port) argv.insert(argv.end(), {"-gdb", loopback(*config.gdb_port)});
  for (const std::string& plugin : config.plugins) argv.insert(argv.end(), {"-plugin", plugin});
  return argv;
}

}  // namespace dcpi::qemu
