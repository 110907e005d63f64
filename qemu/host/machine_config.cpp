#include "qemu/host/machine_config.h"

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

void check_machine_config(const MachineConfig& config) {
  if (config.cpus < 1 || config.cpus > kMaxCpus)
    throw std::invalid_argument("clipper has 1 to 4 CPUs, not " + std::to_string(config.cpus));
  if (config.memory_mb < 64) throw std::invalid_argument("at least 64 MB of guest memory needed");
  check_alpha_elf(config.palcode, "PALcode (-bios)");
  check_alpha_elf(config.kernel, "kernel (-kernel)");
  if (!config.initrd.empty() && !std::ifstream(config.initrd))
    throw std::invalid_argument("initrd not found or unreadable: " + config.initrd);
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
