// Kernel entry on the boot CPU: traps, secondary CPUs, then the job the
// command line asks for (a guest self-test, or init and its profiled run).
#include "driver/driver.h"
#include "kernel/clock.h"
#include "kernel/console.h"
#include "kernel/host_output.h"
#include "kernel/initrd.h"
#include "kernel/load_map_writer.h"
#include "kernel/page_alloc.h"
#include "kernel/palcalls.h"
#include "kernel/process.h"
#include "kernel/profiler.h"
#include "kernel/ramfs.h"
#include "kernel/scheduler.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/trap_entries.h"
#include "kernel/uart.h"

extern "C" char __kernel_start[], __kernel_end[];

namespace kernel {
namespace {

constexpr uint64_t kCommandLineOffset = 0x6000;  // DESIGN §3: below the kernel
constexpr uint64_t kCommandLineBytes = 0x100;
constexpr uint64_t kInitrdAddressOffset = 0x100;  // DESIGN §3: after the command line
constexpr uint64_t kInitrdSizeOffset = 0x108;

struct BootOptions {
  char test[32] = "";
  uint64_t samples = 2000;
  char init[96] = "/bin/init";
  char script[96] = "/etc/default.mix";
  bool halt = false;
  bool host_channel = false;  // host=com3: the host reads COM3 (issue 30)
  profiler::Options profiler;
};

void copy_value(char* to, uint64_t capacity, const char* value, uint64_t length) {
  uint64_t n = 0;
  for (; n < length && n + 1 < capacity; ++n) to[n] = value[n];
  to[n] = 0;
}

bool starts_with(const char* s, const char* prefix) {
  while (*prefix)
    if (*s++ != *prefix++) return false;
  return true;
}

uint64_t parse_number(const char* digits, uint64_t length) {
  uint64_t n = 0;
  for (uint64_t k = 0; k < length && digits[k] >= '0' && digits[k] <= '9'; ++k)
    n = n * 10 + static_cast<uint64_t>(digits[k] - '0');
  return n;
}

// "key=value key=value": test=NAME, samples=N, init=PATH, script=PATH,
// halt=1, host=com3, profile=0|1, period=CYCLES, period_range=CYCLES, seed=N, transport=serial,
// values=N/k, vcapture=SPEC, chains=BYTES, output=PATH,PATH (kernel/host_output.h),
// tty=N (the console streams that are terminals, 1 stdout and 2 stderr:
// console_is_terminal), realtime=SECONDS
// (the wall clock at boot: clock::set_realtime_at_boot).
BootOptions parse_command_line(const char* line) {
  BootOptions options;
  for (uint64_t i = 0; i < kCommandLineBytes && line[i];) {
    const char* word = line + i;
    uint64_t length = 0;
    while (i + length < kCommandLineBytes && word[length] && word[length] != ' ') ++length;
    if (starts_with(word, "test=")) {
      copy_value(options.test, sizeof options.test, word + 5, length - 5);
    } else if (starts_with(word, "init=")) {
      copy_value(options.init, sizeof options.init, word + 5, length - 5);
    } else if (starts_with(word, "script=")) {
      copy_value(options.script, sizeof options.script, word + 7, length - 7);
    } else if (starts_with(word, "host=com3")) {
      options.host_channel = true;
    } else if (starts_with(word, "halt=")) {
      options.halt = length > 5 && word[5] == '1';
    } else if (starts_with(word, "profile=")) {
      options.profiler.enabled = !(length > 8 && word[8] == '0');
    } else if (starts_with(word, "period=")) {
      options.profiler.period_base = static_cast<uint32_t>(parse_number(word + 7, length - 7));
    } else if (starts_with(word, "transport=")) {
      options.profiler.serial = starts_with(word + 10, "serial");
    } else if (starts_with(word, "values=")) {
      // values=N/k (seed 001 §3.4: 4/2 is the paper's vprof configuration)
      uint64_t slash = 7;
      while (slash < length && word[slash] != '/') ++slash;
      options.profiler.value_length = static_cast<uint32_t>(parse_number(word + 7, slash - 7));
      if (slash + 1 < length)
        options.profiler.value_every =
            static_cast<uint32_t>(parse_number(word + slash + 1, length - slash - 1));
    } else if (starts_with(word, "chains=")) {  // dcpi run -g (issue 28)
      options.profiler.chain_stack_bytes =
          static_cast<uint32_t>(parse_number(word + 7, length - 7));
    } else if (starts_with(word, "vcapture=")) {
      // seed 001 §2.4: what the interpreter records (firmware/value_tuples.h)
      options.profiler.value_capture_bad =
          !dcpi::parse_capture_spec(word + 9, length - 9, options.profiler.value_capture);
      if (options.profiler.value_capture_bad)
        options.profiler.value_capture = dcpi::default_value_capture();
    } else if (starts_with(word, "events=")) {  // dcpi run --events (issue 26)
      options.profiler.events = static_cast<uint32_t>(parse_number(word + 7, length - 7));
    } else if (starts_with(word, "profileme_pair=")) {  // dcpi run --profileme-paired W
      options.profiler.profileme_pair = static_cast<uint32_t>(parse_number(word + 15, length - 15));
    } else if (starts_with(word, "profileme=")) {  // dcpi run --profileme (issue 27)
      options.profiler.profileme = static_cast<uint32_t>(parse_number(word + 10, length - 10));
    } else if (starts_with(word, "count=")) {  // dcpi stat (issue 26 item 4)
      options.profiler.count_events = static_cast<uint32_t>(parse_number(word + 6, length - 6));
    } else if (starts_with(word, "ekill=")) {  // dcpi run --events imiss:u (issue 26)
      options.profiler.event_kill = static_cast<uint32_t>(parse_number(word + 6, length - 6));
    } else if (starts_with(word, "emux=")) {
      options.profiler.events_mux = length > 5 && word[5] == '1';
    } else if (starts_with(word, "seed=")) {  // dcpi run --seed
      options.profiler.seed = static_cast<uint32_t>(parse_number(word + 5, length - 5));
    } else if (starts_with(word, "period_range=")) {
      options.profiler.period_range = static_cast<uint32_t>(parse_number(word + 13, length - 13));
    } else if (starts_with(word, "output=")) {  // dcpi run --output (issue 29)
      host_output::set_paths(word + 7, length - 7);
    } else if (starts_with(word, "realtime=")) {  // the host's clock at boot (seconds)
      clock::set_realtime_at_boot(parse_number(word + 9, length - 9));
    } else if (starts_with(word, "tty=")) {  // dcpi run to a terminal: isatty() is true
      set_console_terminals(static_cast<uint32_t>(parse_number(word + 4, length - 4)));
    } else if (starts_with(word, "samples=")) {
      options.samples = parse_number(word + 8, length - 8);
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
  if (options.host_channel) uart3_enable();
  dcpi::driver::driver_init(static_cast<uint32_t>(cpu_count), profiler::kDaemonCpu);
  const uint64_t initrd_address =
      *reinterpret_cast<const uint64_t*>(command_line_address + kInitrdAddressOffset);
  const uint64_t initrd_bytes =
      *reinterpret_cast<const uint64_t*>(command_line_address + kInitrdSizeOffset);
  // QEMU puts the initrd at the top of memory; one larger than the memory
  // is not loaded at all (and its address is then outside it). Say so
  // instead of reading garbage (issue 30).
  const uint64_t kernel_end = pages::kseg_to_phys(reinterpret_cast<uint64_t>(__kernel_end));
  if (initrd_bytes != 0 && (initrd_address < dcpi::physical_to_kseg(kernel_end) ||
                            pages::kseg_to_phys(initrd_address) > memory_bytes ||
                            initrd_bytes > memory_bytes - pages::kseg_to_phys(initrd_address)))
    panic("the initrd (%lu bytes) does not fit in %lu MB of guest memory: QEMU did not load it",
          initrd_bytes, memory_bytes >> 20);
  const uint64_t files = initrd::init(initrd_address, initrd_bytes);
  pages::init(kernel_end, initrd::present() ? initrd::start_phys() : memory_bytes);
  load_map_init();
  sched::init_cpu(0);
  if (initrd_bytes != 0)
    kprintf("dcpi-kernel: initrd %lu bytes, %lu files; %lu pages free\n", initrd_bytes, files,
            pages::free_count());
  smp::start_secondaries(cpu_count);
  pal::set_tick(smp::kTickNs);
  pal::swpipl(0);
  kprintf("dcpi-kernel: %lu CPUs online\n", smp::online_count());
  if (options.test[0]) {
    selftest::run(options.test, options.samples);
    pal::halt();
  }
  if (initrd::present()) {
    // Every Linux system has a /tmp (mkstemp, tmpfile) and a /dev/shm
    // (shm_open); RAM, like a tmpfs.
    ramfs::make_directory("tmp");
    ramfs::make_directory("dev");
    ramfs::make_directory("dev/shm");
    profiler::configure(options.profiler);
    const char* argv[] = {options.init, options.script};
    const int64_t pid = spawn_user(options.init, argv, 2, nullptr, 0, 0);
    if (pid < 0) panic("cannot start init %s: error %ld", options.init, -pid);
    set_init_pid(static_cast<uint32_t>(pid), options.halt);
    profiler::start(options.profiler);
    sched::idle_loop();
  }
  // No init to run: idle, with the daemon serving the host (dcpi ingest).
  kprintf("dcpi-kernel: no initrd and no test: idle\n");
  kprintf("DCPI-READY\n");
  // The DCPI daemon runs in the boot CPU's idle loop until kernel threads
  // exist: woken by the tick, a full-buffer IPI, or any other interrupt.
  for (;;) {
    pal::wtint();
    dcpi::driver::daemon_step();
  }
}
