// Kernel entry on the boot CPU: traps, secondary CPUs, then the job the
// command line asks for (a guest self-test, or the default profiled run).
#include "driver/driver.h"
#include "kernel/console.h"
#include "kernel/kernel_workload.h"
#include "kernel/palcalls.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/traps.h"

extern "C" char __kernel_start[];

namespace kernel {
namespace {

constexpr uint64_t kCommandLineOffset = 0x6000;  // DESIGN §3: below the kernel
constexpr uint64_t kCommandLineBytes = 0x100;

struct BootOptions {
  char test[32] = "";
  uint64_t samples = 2000;
};

bool starts_with(const char* s, const char* prefix) {
  while (*prefix)
    if (*s++ != *prefix++) return false;
  return true;
}

// "key=value key=value": test=NAME, samples=N.
BootOptions parse_command_line(const char* line) {
  BootOptions options;
  for (uint64_t i = 0; i < kCommandLineBytes && line[i];) {
    const char* word = line + i;
    uint64_t length = 0;
    while (i + length < kCommandLineBytes && word[length] && word[length] != ' ') ++length;
    if (starts_with(word, "test=")) {
      uint64_t n = 0;
      for (; n + 5 < length && n + 1 < sizeof(options.test); ++n) options.test[n] = word[5 + n];
      options.test[n] = 0;
    } else if (starts_with(word, "samples=")) {
      options.samples = 0;
      for (uint64_t k = 8; k < length && word[k] >= '0' && word[k] <= '9'; ++k)
        options.samples = options.samples * 10 + static_cast<uint64_t>(word[k] - '0');
    }
    i += length;
    while (i < kCommandLineBytes && line[i] == ' ') ++i;
  }
  return options;
}

}  // namespace
}  // namespace kernel

extern "C" void kernel_main(uint64_t memory_bytes, uint64_t cpu_count) {
  using namespace kernel;
  install_trap_entries();
  // The command line lies below the kernel image; launder the address so the
  // compiler does not treat it as an access outside __kernel_start.
  uint64_t command_line_address = reinterpret_cast<uint64_t>(__kernel_start) - kCommandLineOffset;
  asm("" : "+r"(command_line_address));
  const char* command_line = reinterpret_cast<const char*>(command_line_address);
  kprintf("dcpi-kernel: %lu CPUs, %lu MB, command line '%s'\n", cpu_count, memory_bytes >> 20,
          command_line);
  const BootOptions options = parse_command_line(command_line);
  dcpi::driver::driver_init(static_cast<uint32_t>(cpu_count), 0);
  smp::start_secondaries(cpu_count);
  pal::set_tick(smp::kTickNs);
  pal::swpipl(0);
  kprintf("dcpi-kernel: %lu CPUs online\n", smp::online_count());
  if (options.test[0]) {
    selftest::run(options.test, options.samples);
    pal::halt();
  }
  workload::profile_all_cpus(options.samples);
  dcpi::driver::flush_all();  // the profile so far into the transfer ring
  kprintf("DCPI-READY\n");
  // The DCPI daemon runs in the boot CPU's idle loop until kernel threads
  // exist: woken by the tick, a full-buffer IPI, or any other interrupt.
  for (;;) {
    pal::wtint();
    dcpi::driver::daemon_step();
  }
}
