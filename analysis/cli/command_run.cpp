// `dcpi run`: boot the workloads under QEMU with the profiler on, pull the
// samples while they run, and leave a profile database (DESIGN §6).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/console_echo.h"
#include "analysis/cli/report_options.h"
#include "analysis/cli/run_execution.h"
#include "analysis/reports/json_writer.h"
#include "firmware/call_chains.h"
#include "firmware/events.h"
#include "firmware/memory_map.h"
#include "firmware/profileme.h"
#include "firmware/value_tuples.h"
#include "hostdump/run/guest_outputs.h"
#include "hostdump/run/machine_files.h"
#include "hostdump/run/profiled_run.h"
#include "hostdump/run/program_run.h"
#include "hostdump/run/workload_outcome.h"
#include "hostdump/values/value_capture.h"
#include "profiledb/event_modes.h"
#include "profiledb/profile_db.h"

namespace dcpi {

const std::string_view kRunUsage =
    "usage: dcpi run [--mix NAME | --workloads A,B,...] [--cpus N] [--db DIR] [--epoch N]\n"
    "                [--period CYCLES [--period-range CYCLES]] [--seed N] [--realtime SECONDS]\n"
    "                [--events LIST]\n"
    "                [--no-profile]\n"
    "                [--machine qemu|ev5] [--model NAME=N,...] [--truth FILE] [--contexts]\n"
    "                [--paths] [-g | --call-graph [--stack-bytes N]]\n"
    "                [--profileme | --profileme-interval N] [--profileme-paired W]\n"
    "                [--build DIR] [--palcode P] [--kernel K] [--initrd I] [--memory MB]\n"
    "                [--transport gdb|serial] [--interval SECONDS] [--timeout SECONDS] [--quiet] "
    "[--gdb-port PORT] [--json]\n"
    "                [--values N/k [--values-module M.so,...] [--values-capture SPEC]]\n"
    "                [--print-qemu-command [--append TEXT] [--plugin ARGS] [--no-gdb]\n"
    "                 [--no-initrd] [--com2-port PORT]]\n"
    "       dcpi run [OPTIONS] [--file HOST[:GUEST]]... [--lib-path DIR]... [--env NAME=VALUE]...\n"
    "                -- PROGRAM [ARGS...]\n"
    "                [-- PROGRAM [ARGS...]]...\n"
    "\n"
    "Boots PALcode, kernel and the workload initrd under qemu-system-alpha (clipper,\n"
    "-icount shift=2,sleep=off), lets init run the workloads while the DCPI driver samples\n"
    "every CPU, pulls the transfer ring through QEMU's GDB stub (loopback only) every\n"
    "--interval seconds, and merges the samples into the profile database. SIGINT,\n"
    "SIGTERM or SIGHUP stop the run: what was pulled is stored, QEMU is stopped, and\n"
    "dcpi exits with 128 + the signal; QEMU never outlives dcpi, even after SIGKILL.\n"
    "A QEMU exit, a guest panic or a timeout fails the run (exit 1) with the reason; so\n"
    "does a workload that fails (an unknown mix or program, a non-zero exit, a signal):\n"
    "its profile is stored, and each failure is named (\"the workload failed: ...\").\n"
    "Like perf record, what the programs print goes to stdout (dcpi run -- prog > out\n"
    "captures exactly it); the kernel's, init's and dcpi's own messages and the summary\n"
    "go to stderr. The guest's console is a terminal (isatty) only when that stdout is\n"
    "one, so a glibc program's stdio buffers as under Linux with the same redirection.\n"
    "  --mix        run /etc/NAME.mix from the initrd (default: default); a mix with\n"
    "               programs in BUILD/mixes/NAME (real: lua, bzip2, minigzip cross-built\n"
    "               from Debian sources) gets them, their libraries and data added\n"
    "  --workloads  run these programs of /bin one after the other instead\n"
    "  --cpus       1 to 4 (default 4)\n"
    "  --db         the profile database directory (default: dcpi.db)\n"
    "  --epoch      database epoch for this run (default: one after the last stored)\n"
    "  --period     sampling period base in cycles (default 61440 = 60K)\n"
    "  --period-range  width of the uniform random period (default 4096 = 4K)\n"
    "  --seed       seed of the random periods (and ProfileMe's intervals), 1 to\n"
    "               4294967295 (default: the driver's built-in seed): a run on 1 CPU is\n"
    "               deterministic, so its repetitions sample the same instructions; with\n"
    "               other seeds they sample others, and their profiles (the same --epoch)\n"
    "               and truths (dcpi score --truth A,B,...) add up, as DCPI's Figure 8\n"
    "               added three runs of each program\n"
    "  --realtime   the guest's wall clock at boot, in seconds since 1970 (default: the\n"
    "               host's clock now, as Linux reads its RTC at boot; the clock then runs\n"
    "               on the virtual time): what time(), gettimeofday, CLOCK_REALTIME and\n"
    "               new files' times say. Give one for runs whose programs read the date\n"
    "               to repeat exactly\n"
    "  --events     what to sample: cycles (default), a list such as cycles,imiss, or\n"
    "               DCPI's configurations default (cycles,imiss) and mux (cycles with\n"
    "               imiss, dmiss and branchmp rotated on counter 2); misses and\n"
    "               mispredicts and longstalls (counter 2), loads, stores, nonissue\n"
    "               and issue1-issue4 cycles (counter 1, beside counter 2) need\n"
    "               --machine ev5 (the qemu machine counts cycles);\n"
    "               perf's modifiers on those: imiss:u (user mode only), :k (kernel),\n"
    "               :p (PALmode), or two (:uk): the 21164's kill bits, one set for all\n"
    "               its counters (counters 1 and 2's events take the same one);\n"
    "               cycles (PALcode's clock) counts in every mode and takes none\n"
    "  --machine    whose time the guest runs on: qemu (default; one cycle per\n"
    "               instruction, exact and fast) or ev5 (our patched QEMU with a model of\n"
    "               the Alpha 21164 charging its stalls to the guest clock; slower)\n"
    "  --model      the ev5 machine's parameters, e.g. memory_latency=120,memory_bus=64\n"
    "               (names, defaults and sources: docs/ev5-machine.md); recorded nowhere\n"
    "               else, so keep the command line with the results\n"
    "  --truth      also write the ground truth to FILE: exact execution counts (qemu),\n"
    "               plus per-instruction cycles and stall causes (ev5); see dcpi score\n"
    "  --contexts   also record every thread's exact calling context tree (seed 002):\n"
    "               calls, instructions and cycles per context, from the machine, no\n"
    "               instrumentation (on ev5 the 21164 model's cycles, stalls included,\n"
    "               and its D-/I-cache misses, DTB misses and mispredicts); see dcpi\n"
    "               tree, dcpi prof --callers/--callees\n"
    "  --paths      also record every procedure's exact Ball-Larus path profile (seed\n"
    "               002): runs and instructions per path, and on ev5 the 21164 model's\n"
    "               cycles and events; see dcpi paths\n"
    "  --call-graph also record a call chain with every sample (-g for short; issue\n"
    "               28): the driver copies the registers and the stack above sp, the\n"
    "               host unwinds them with each image's DWARF CFI (as perf --call-graph\n"
    "               dwarf); chains that cannot be finished are kept and counted by why\n"
    "               (dcpi prof --callers/--callees, dcpi tree --sampled, dcpi export\n"
    "               --sampled, dcpi score --contexts)\n"
    "  --stack-bytes  stack copied per sample with -g (default and at most 16384; never\n"
    "               above the thread's stack base)\n"
    "  --profileme  also sample instructions (ProfileMe, seed 004; --machine ev5): one\n"
    "               fetched instruction per 65536 (mean), its PC, event bits and\n"
    "               latencies, stored as pm_* events (see dcpi profileme)\n"
    "  --profileme-interval N  the same, one per N fetched instructions (mean;\n"
    "               intervals exponential, so every instruction is as likely)\n"
    "  --profileme-paired W  paired sampling (seed 004 4.2): each sampled instruction\n"
    "               gets a partner 1..W fetches later (uniform; W <= 64, the 21164's\n"
    "               4-wide issue needs W >= 3), for the wasted issue slots in dcpi\n"
    "               profileme; implies --profileme\n"
    "  --no-profile run with sampling off (for overhead baselines)\n"
    "  --values     value sampling (seed 001): interpret N instructions on every k-th\n"
    "               interrupt of user code and store value hotlists (see dcpi values)\n"
    "  --values-module  customization module plug-ins (shared objects, comma-separated)\n"
    "               whose kinds are stored besides the built-in operand values\n"
    "  --values-capture  more for the interpreter to record than the modules ask for:\n"
    "               FIELDS[,XX=FIELDS...][,ctx][,reg=N], FIELDS letters of t (PC, word),\n"
    "               o (operands), r (result), a (address), l (latency), n (register N);\n"
    "               XX a major opcode in hex; ctx: ra and top of stack per run\n"
    "  --transport  gdb (default): read the ring through QEMU's GDB stub; serial: the guest\n"
    "               sends the same records on its second serial port (COM2)\n"
    "  --build      the build directory holding guest/ (default: where dcpi lives, or\n"
    "               PREFIX/share/dcpi for an installed PREFIX/bin/dcpi)\n"
    "  --palcode    the PALcode ELF (default: BUILD/guest/palcode/palcode.elf)\n"
    "  --kernel     the kernel ELF (default: BUILD/guest/kernel/kernel.elf)\n"
    "  --initrd     the initrd cpio of workloads and mixes (default:\n"
    "               BUILD/guest/workloads/initrd.cpio)\n"
    "  --memory     guest memory in MB, 64 to 2048 (default 256)\n"
    "  --interval   seconds between pulls of the transfer ring at most (default 0.5:\n"
    "               down to 1/32 of it while pulls find the ring filling, so the guest's\n"
    "               buffers do not overflow); with --transport serial, between merges\n"
    "               into the database\n"
    "  --timeout    give up (exit 1, what was pulled is stored) after this many seconds\n"
    "               of real time (default 900)\n"
    "  --gdb-port   the loopback port of QEMU's GDB stub (default: a free one); with\n"
    "               --transport serial the stub is left to a debugger (gdb-multiarch\n"
    "               -ex 'target remote :PORT' kernel.elf) and opened only when asked\n"
    "  --json       the summary as JSON on stdout (database, epoch_base, samples,\n"
    "               workload_cycles, workload_failures, ...) instead of text on stderr;\n"
    "               the programs' output then goes to stderr\n"
    "  --quiet      no progress and none of the kernel's and init's messages: only the\n"
    "               programs' own output, the summary and errors\n"
    "  --print-qemu-command  print the QEMU command line this run would use, shell-quoted\n"
    "               on one line, and exit (the Python tests start QEMU with it)\n"
    "  --append     the kernel command line verbatim, instead of the one built from the\n"
    "               options (e.g. test=boot for the kernel self-tests)\n"
    "  --plugin     a TCG plugin and its arguments (QEMU -plugin), e.g. file=P.so,out=F\n"
    "  --no-gdb     without QEMU's GDB stub (the command line only: a run needs it)\n"
    "  --no-initrd  without an initrd\n"
    "  --com2-port  COM2 connects to this loopback port (the command line only)\n"
    "\n"
    "With -- PROGRAM, profiles that Alpha Linux program (built with alpha-linux-gnu-gcc or\n"
    "-g++, dynamically linked) instead of a mix: it goes into a fresh initrd with its\n"
    "dynamic loader and shared libraries (its DT_NEEDED, found in --lib-path dirs, then\n"
    "/usr/alpha-linux-gnu/lib, and those its images name, which they may dlopen), and the\n"
    "--file data files (default guest path /data/NAME),\n"
    "runs with ARGS (any but newlines), and dcpi run exits with its status (128 + the\n"
    "signal that killed it). Each further -- PROGRAM [ARGS...] group runs after the one\n"
    "before; the exit status is the first failure's. A regular file on dcpi run's stdin\n"
    "(dcpi run -- PROGRAM < FILE) is the programs' stdin in the guest.\n"
    "  --file       HOST[:GUEST]: a data file for the program (repeatable)\n"
    "  --output     GUEST:HOST: after the run, copy the guest's file GUEST (one the programs\n"
    "               wrote, or any file of the initrd) to HOST (repeatable)\n"
    "  --lib-path   a directory searched for its shared libraries first (repeatable)\n"
    "  --env        NAME=VALUE: an environment variable for the programs (repeatable); NAME\n"
    "               alone passes dcpi's own value. They start with a root login's PATH=/bin:\n"
    "               /usr/bin, HOME=/, PWD=/, SHELL=/bin/sh, USER, LOGNAME=root, LANG=C and\n"
    "               TERM=dumb, not dcpi's environment (the guest is another system)\n";

namespace {

// Where the guest files are (guest/palcode, guest/kernel, guest/workloads):
// beside dcpi in a build tree (build/dcpi, build/guest), or for an installed
// dcpi (<prefix>/bin/dcpi) under <prefix>/share/dcpi (install.cmake).
std::filesystem::path default_build_directory() {
  std::error_code error;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return std::filesystem::current_path();
  const std::filesystem::path beside = exe.parent_path();
  const std::filesystem::path installed = beside.parent_path() / "share" / "dcpi";
  if (!std::filesystem::exists(beside / "guest", error) &&
      std::filesystem::exists(installed / "guest", error))
    return installed;
  return beside;
}

// Seed 001 §2.4: what the interpreter records is what the loaded modules
// (the built-in operand module and any plug-in) ask for, plus --values-capture.
std::string capture_spec_for(const RunRequest& run, const std::optional<std::string>& extra) {
  std::vector<values::CaptureRequest> requests{values::make_operand_module()->capture()};
  try {
    for (const std::string& path : run.value_modules)
      requests.push_back(values::load_module(path)->capture());
    if (extra) requests.push_back(values::request_from_spec(*extra));
    std::string spec = values::format_capture_spec(values::combine_captures(requests));
    if (spec.size() > 100)
      throw std::invalid_argument("the value capture '" + spec +
                                  "' is too long for the kernel command line (100 characters)");
    return spec;
  } catch (const std::invalid_argument& error) {  // a bad spec, conflicting modules
    throw UsageError(error.what());
  } catch (const std::runtime_error& error) {  // a module that does not load: before booting
    throw UsageError(error.what());
  }
}

uint32_t parse_count(const ParsedOptions& options, const std::string& name, uint32_t fallback,
                     uint32_t low, uint32_t high) {
  return static_cast<uint32_t>(options.number(name, fallback, low, high));
}

// The events `machine` can count, for the errors: the driver refuses any
// other (driver/daemon.cpp). The qemu machine counts cycles only; the ev5
// machine's model adds counter 1's loads and stores and counter 2's misses
// and mispredicts (issue 26).
EventSet countable_on(const std::string& machine) {
  return machine == "ev5" ? (kCountableOnQemu | kCountableOnEv5) : kCountableOnQemu;
}

std::string countable_events(const std::string& machine) {
  std::string names;
  for (size_t e = 0; e < std::size(kEventNames); ++e)
    if (countable_on(machine) & (EventSet{1} << e))
      names += (names.empty() ? "" : ", ") + std::string(kEventNames[e]);
  return "the " + machine + " machine counts: " + names;
}

EventSet event_named(const std::string& name, const std::string& machine) {
  for (size_t e = 0; e < std::size(kEventNames); ++e) {
    if (name != kEventNames[e]) continue;
    const EventSet bit = EventSet{1} << e;
    if (countable_on(machine) & bit) return bit;
    if (machine != "ev5" && (kCountableOnEv5 & bit))
      throw UsageError("the emulated Alpha cannot count '" + name +
                       "': QEMU has no caches or pipeline events, only cycles (one per "
                       "instruction under icount; " +
                       countable_events(machine) +
                       "); the 21164 model counts it: --machine ev5; see docs/qemu-deviations.md");
    throw UsageError("the " + machine + " machine cannot count '" + name + "': its model has no " +
                     name + " events (" + countable_events(machine) + "); see docs/ev5-machine.md");
  }
  const std::vector<std::string> names(std::begin(kEventNames), std::end(kEventNames));
  throw UsageError("unknown event '" + name + "'" + closest_name_hint(name, names) + " (" +
                   countable_events(machine) + ")");
}

// An event's modifier (perf's `:u`, `:k`, and `:p` for PALmode; issue 26):
// the 21164's kill bits (profiledb/event_modes.h). Counter 0's cycles is
// PALcode's virtual clock, which counts in every mode: refused.
uint32_t modifier_kill_bits(const std::string& name, EventSet bit, const std::string& letters) {
  const std::optional<uint32_t> kill = kill_bits_of_modes(letters);
  if (!kill)
    throw UsageError("'" + name +
                     "': a modifier is u (user), k (kernel), p (PALmode) or a "
                     "combination such as uk, each once, not all three (that is no modifier)");
  if (bit == event_bit(Event::kCycles))
    throw UsageError("cannot count '" + name +
                     "': counter 0's cycles is PALcode's virtual clock, "
                     "which counts in every mode (the kill bits are the ev5 model's, on counters 1 "
                     "and 2; docs/ev5-machine.md \"Event counters\"); sample cycles without a "
                     "modifier");
  return *kill;
}

// --events: a list of event names, or DCPI's configurations (§4.1):
// "default" = cycles,imiss; "mux" = cycles with imiss, dmiss and branchmp
// rotated on counter 2. A list that gives counter 2 more than one event is
// time-multiplexed too. Cycles is always sampled (counter 0 runs). An event
// may carry a mode modifier (imiss:u); the 21164 has one set of kill bits
// for all its counters (HRM PMCTR), so counters 1 and 2's events must agree.
void parse_events(const std::string& events, const std::string& machine, RunRequest& run) {
  std::string list_text = events;
  if (events == "default") list_text = "cycles,imiss";
  if (events == "mux") list_text = "cycles,imiss,dmiss,branchmp";
  std::stringstream list(list_text);
  std::string name;
  EventSet set = 0;
  std::optional<std::pair<std::string, uint32_t>> modes;  // the first event of counters 1, 2
  while (std::getline(list, name, ',')) {
    const size_t colon = name.find(':');
    const EventSet bit = event_named(name.substr(0, colon), machine);
    const uint32_t kill =
        colon == std::string::npos ? 0 : modifier_kill_bits(name, bit, name.substr(colon + 1));
    set |= bit;
    if (!(bit & kCountableOnEv5)) continue;
    if (!modes) modes.emplace(name, kill);
    if (modes->second != kill)
      throw UsageError("'" + modes->first + "' and '" + name + "' count in different modes: the " +
                       "21164 has one set of kill bits (PMCTR KILLU, KILLK, KILLP) for all its " +
                       "counters; give counters 1 and 2's events the same modifier");
  }
  run.event_kill = modes ? modes->second : 0;
  // One event per counter at a time: a counter (1: loads, stores; 2: the
  // misses and mispredicts) given several rotates them.
  const EventSet counter1 = set & kCounter1Events, counter2 = set & kCounter2Events;
  run.events = set == event_bit(Event::kCycles) ? 0 : set;
  run.events_mux = (counter1 & (counter1 - 1)) != 0 || (counter2 & (counter2 - 1)) != 0;
}

// Options that describe the machine beyond a profiled run (the Python tests'
// self-test boots, plugins, their own listeners): --print-qemu-command only,
// except --append, --plugin and --no-initrd, which a run honours too.
void parse_machine_extras(const ParsedOptions& options, RunRequest& run) {
  const bool print = options.flag("print-qemu-command");
  if (!print && (options.flag("no-gdb") || options.value("com2-port")))
    throw UsageError("--no-gdb and --com2-port go with --print-qemu-command");
  if (options.value("append")) run.append = *options.value("append");
  if (const auto plugin = options.value("plugin")) run.machine.plugins.push_back(*plugin);
  if (options.flag("no-initrd")) run.machine.initrd.clear();
  run.gdb_stub = !options.flag("no-gdb");
  if (options.value("com2-port"))
    run.machine.serial2_port =
        static_cast<uint16_t>(parse_count(options, "com2-port", 0, 1024, 65535));
}

// One line a shell (and Python's shlex.split) reads back as the same argv.
std::string shell_quoted(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& arg : argv) {
    if (!line.empty()) line += ' ';
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                           "0123456789_-+=/.,:@%") == std::string::npos;
    if (plain) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

std::filesystem::path build_directory(const ParsedOptions& options) {
  return options.value("build") ? std::filesystem::path(*options.value("build"))
                                : default_build_directory();
}

// --machine ev5|qemu and --truth FILE (issue 14): the emulator, the timing
// plugin and where the ground truth goes. On `qemu` the truth is the
// exec_counts plugin's exact counts; on `ev5` the model writes it.
void parse_machine_choice(const ParsedOptions& options, const std::filesystem::path& build,
                          RunRequest& run) {
  const std::string machine = options.value("machine").value_or("qemu");
  if (machine != "qemu" && machine != "ev5")
    throw UsageError("--machine is qemu or ev5, not '" + machine + "'");
  std::optional<std::filesystem::path> truth;
  if (const auto file = options.value("truth")) {
    if (file->empty() || file->find(',') != std::string::npos)
      throw UsageError("--truth takes a file name without commas (QEMU's option syntax)");
    truth = *file;
  }
  choose_timing_machine(run, build, machine, truth);
  if (options.flag("contexts")) add_contexts_plugin(run, build);
  if (options.flag("paths")) add_path_profiles(run, build);
  if (const auto parameters = options.value("model")) {
    if (machine != "ev5")
      throw UsageError("--model sets the ev5 machine's parameters (--machine ev5)");
    try {
      set_model_parameters(run, *parameters);
    } catch (const std::invalid_argument& error) {
      throw UsageError(error.what());
    }
  }
}

RunRequest parse_run_options(const ParsedOptions& options) {
  RunRequest run;
  const std::filesystem::path guest = build_directory(options) / "guest";
  run.machine.palcode = options.value("palcode").value_or(guest / "palcode/palcode.elf");
  run.machine.kernel = options.value("kernel").value_or(guest / "kernel/kernel.elf");
  run.machine.initrd = options.value("initrd").value_or(guest / "workloads/initrd.cpio");
  run.machine.cpus = parse_count(options, "cpus", 4, 1, kMaxCpus);
  run.machine.memory_mb = parse_count(options, "memory", 256, 64, 2048);
  if (options.value("mix") && options.value("workloads"))
    throw UsageError("give --mix or --workloads, not both");
  if (const auto list = options.value("workloads")) {
    if (list->empty() || list->find_first_of(" /") != std::string::npos)
      throw UsageError("--workloads takes program names separated by commas, e.g. copy,stream");
    run.script = *list;
  } else {
    const std::string mix = options.value("mix").value_or("default");
    if (mix.empty() || mix.find_first_of(" /") != std::string::npos)
      throw UsageError("--mix takes a mix name such as default or copy");
    run.script = "/etc/" + mix + ".mix";
  }
  run.database = options.database();
  if (options.value("epoch")) run.epoch = parse_count(options, "epoch", 1, 1, kMaxEpoch);
  run.period_base = parse_count(options, "period", 0, 512, 65536);
  run.period_range = parse_count(options, "period-range", run.period_base ? 4096 : 0, 0, 65536);
  if (options.value("seed")) run.seed = parse_count(options, "seed", 0, 1, 4294967295u);
  // Up to the year 9999 (the kernel's cycles since 1970 fit 64 bits far beyond).
  constexpr uint64_t kLastRealtime = 253402300799;
  run.realtime_seconds = options.value("realtime") ? options.number("realtime", 0, 0, kLastRealtime)
                                                   : static_cast<uint64_t>(std::time(nullptr));
  if (run.period_base && run.period_base + run.period_range > 65536)
    throw UsageError("period + range must fit the 16-bit counter (at most 65536)");
  parse_events(options.value("events").value_or("cycles"),
               options.value("machine").value_or("qemu"), run);
  run.profile = !options.flag("no-profile");
  run.profileme = options.flag("profileme") ? 1 : 0;
  if (options.value("profileme-interval"))
    run.profileme = parse_count(options, "profileme-interval", 0, 256, 1u << 30);
  if (options.value("profileme-paired")) {
    run.profileme_pair = parse_count(options, "profileme-paired", 0, 1, PROFILEME_PAIR_WINDOW_MAX);
    if (run.profileme == 0) run.profileme = 1;
  }
  if (run.profileme != 0 && options.value("machine").value_or("qemu") != "ev5")
    throw UsageError("--profileme needs --machine ev5: QEMU has no pipeline to sample");
  if (const auto values = options.value("values")) {
    // N/k: interpret N instructions on every k-th interrupt (seed 001 §3.4).
    const size_t slash = values->find('/');
    auto digits = [](const std::string& t) {
      return !t.empty() && t.size() <= 4 && t.find_first_not_of("0123456789") == std::string::npos;
    };
    if (slash == std::string::npos || !digits(values->substr(0, slash)) ||
        !digits(values->substr(slash + 1)) || std::stoul(values->substr(0, slash)) == 0 ||
        std::stoul(values->substr(0, slash)) > kMaxValueLength ||
        std::stoul(values->substr(slash + 1)) == 0 ||
        std::stoul(values->substr(slash + 1)) > kMaxValueEvery)
      throw UsageError(
          "--values takes N/k, e.g. 4/2 (N <= " + std::to_string(kMaxValueLength) +
          " instructions every k-th interrupt, k <= " + std::to_string(kMaxValueEvery) + ")");
    if (!run.profile) throw UsageError("--values needs profiling (drop --no-profile)");
    run.values = *values;
  }
  if (const auto modules = options.value("values-module")) {
    std::stringstream list(*modules);  // A.so,B.so
    for (std::string module; std::getline(list, module, ',');)
      if (!module.empty()) run.value_modules.push_back(module);
  }
  if (!run.values.empty())
    run.value_capture = capture_spec_for(run, options.value("values-capture"));
  else if (options.value("values-capture"))
    throw UsageError("--values-capture needs --values");
  if (options.flag("call-graph")) {
    if (!run.profile) throw UsageError("-g needs profiling (drop --no-profile)");
    if (!run.values.empty()) throw UsageError("-g and --values are separate handler variants");
    run.chain_stack_bytes = static_cast<uint32_t>(
        options.number("stack-bytes", kDefaultChainStackBytes, 8, kMaxChainStackBytes));
    if (run.chain_stack_bytes % 8 != 0) throw UsageError("--stack-bytes must be a multiple of 8");
  } else if (options.value("stack-bytes")) {
    throw UsageError("--stack-bytes needs -g");
  }
  run.pull_interval_seconds = options.seconds("interval", 0.5);
  run.timeout_seconds = options.seconds("timeout", 900);
  const std::string transport = options.value("transport").value_or("gdb");
  if (transport != "gdb" && transport != "serial")
    throw UsageError("--transport is gdb or serial, not '" + transport + "'");
  run.transport = transport == "serial" ? Transport::kSerial : Transport::kGdb;
  if (options.value("gdb-port"))
    run.gdb_port = static_cast<uint16_t>(parse_count(options, "gdb-port", 0, 1024, 65535));
  parse_machine_extras(options, run);
  parse_machine_choice(options, build_directory(options), run);
  return run;
}

// Splits `arguments` at "--": dcpi's own options stay in `arguments`; the
// programs and their arguments (one per "--" group; they run one after the
// other) and every --file/--lib-path go to the result.
std::optional<ProgramCommand> take_program_command(std::vector<std::string>& arguments) {
  const auto dash = std::find(arguments.begin(), arguments.end(), "--");
  if (dash == arguments.end()) return std::nullopt;
  ProgramCommand command;
  for (auto group = dash; group != arguments.end();) {
    const auto next = std::find(group + 1, arguments.end(), "--");
    if (next == group + 1) throw UsageError("-- must be followed by the program to run");
    command.programs.emplace_back(group + 1, next);
    group = next;
  }
  arguments.erase(dash, arguments.end());
  command.files = take_repeated_option(arguments, "file");
  command.lib_paths = take_repeated_option(arguments, "lib-path");
  for (std::string setting : take_repeated_option(arguments, "env")) {
    if (setting.find('=') == std::string::npos) {
      // --env NAME passes the host's value, as docker run -e NAME does.
      const char* value = std::getenv(setting.c_str());
      if (value == nullptr)
        throw UsageError("--env " + setting + ": not set here (give NAME=VALUE)");
      setting += std::string("=") + value;
    }
    command.environment.push_back(setting);
  }
  // `dcpi run ... -- PROGRAM < FILE` (issue 29): a regular file on stdin goes
  // into the initrd as /etc/dcpi/stdin, which the kernel makes the programs'
  // fd 0. A terminal, a pipe or /dev/null is left alone (never read: a test
  // harness's open pipe would block the run).
  struct stat input;
  if (fstat(STDIN_FILENO, &input) == 0 && S_ISREG(input.st_mode))
    command.files.push_back(std::filesystem::read_symlink("/proc/self/fd/0").string() +
                            ":/etc/dcpi/stdin");
  return command;
}

// What to type next (perf record's habit of naming perf report): the
// database if it is not the default. No --images: the run recorded where its
// images are (hostdump/run/booted_images.h).
std::string next_command(const RunRequest& run) {
  std::vector<std::string> argv = {"dcpi", "prof"};
  if (run.database != kDefaultDatabase) argv.insert(argv.end(), {"--db", run.database.string()});
  return shell_quoted(argv);
}

void print_json_summary(const RunRequest& run, const RunResult& result,
                        const WorkloadOutcome& outcome) {
  const IngestTotals& t = result.totals;
  JsonWriter json(std::cout, JsonWriter::Style::kSpaced);
  json.begin_object().field("database", run.database.string());
  json.field("epoch_base", result.epoch_base).field("cpus", run.machine.cpus);
  json.field("pulls", result.pulls).field("guest_cycles", result.guest_cycles);
  json.key("workload_cycles");
  outcome.init_cycles ? json.value(*outcome.init_cycles) : json.null();
  json.field("records", t.records).field("entries", t.entries).field("samples", t.samples);
  json.field("unknown_samples", t.unknown_samples);
  json.field("load_map_records", t.load_map_records);
  json.field("records_rejected", result.decode.rejected());
  json.field("records_lost", result.decode.lost_records);
  json.field("ring_records_dropped", result.ring_records_dropped);
  json.field("ring_samples_dropped", result.ring_samples_dropped);
  json.key("workload_failures").begin_array();
  for (const std::string& failure : outcome.failures) json.value(failure);
  json.end_array().end_object();
}

// The workload's own cycles (init, spawn to exit: kernel/process.cpp), not
// the virtual time at the last pull, which includes however long the guest
// idled before the host stopped it (issue 16: 1.2 G to 9.9 G for one run).
std::string cycles_text(const RunResult& result, const WorkloadOutcome& outcome) {
  if (outcome.init_cycles)
    return " in " + std::to_string(*outcome.init_cycles) + " workload cycles";
  if (result.guest_cycles)
    return " in " + std::to_string(result.guest_cycles) + " guest cycles (the kernel did not say " +
           "how many the workload ran)";
  return {};
}

void print_summary(const RunRequest& run, const RunResult& result, const WorkloadOutcome& outcome,
                   bool json) {
  if (json) return print_json_summary(run, result, outcome);
  const IngestTotals& t = result.totals;
  const double unknown = t.samples ? 100.0 * double(t.unknown_samples) / double(t.samples) : 0;
  std::cerr << "dcpi run: ";
  if (t.samples == 0)  // the builder keeps empty epochs out of the database
    std::cerr << "no samples" << cycles_text(result, outcome)
              << (run.profile ? "" : " (--no-profile)") << "; nothing stored in "
              << run.database.string() << "\n";
  else
    std::cerr << t.samples << " samples (" << t.entries << " entries, " << t.unknown_samples
              << " unknown = " << unknown << "%) from " << run.machine.cpus << " CPUs"
              << cycles_text(result, outcome) << ", stored in " << run.database.string()
              << " epoch " << result.epoch_base << "\n";
  std::cerr << "dcpi run: " << t.records << " records in " << result.pulls
            << (run.transport == Transport::kSerial ? " reads" : " pulls") << "; rejected "
            << result.decode.rejected() << ", lost " << result.decode.lost_records
            << ", dropped in the guest ring " << result.ring_records_dropped << " ("
            << result.ring_samples_dropped << " samples)\n";
  if (result.contexts_epoch != 0)
    std::cerr << "dcpi run: " << result.context_nodes << " calling contexts of "
              << result.context_threads << " threads stored in epoch " << result.contexts_epoch
              << " (dcpi tree --db " << run.database.string() << ")\n";
  if (result.chains_epoch != 0)
    std::cerr << "dcpi run: " << result.chain_samples << " call chains (" << result.chain_nodes
              << " nodes) stored in epoch " << result.chains_epoch << " (dcpi prof --db "
              << run.database.string() << " --callers PROC)\n";
  if (result.paths_epoch != 0)
    std::cerr << "dcpi run: " << result.path_count << " distinct paths stored in epoch "
              << result.paths_epoch << " (dcpi paths --db " << run.database.string()
              << " --procedure P)\n";
  if (t.samples != 0)
    std::cerr << "dcpi run: next, the profile by procedure: " << next_command(run) << "\n";
}

}  // namespace

// dcpi run's whole run: options, bundling, the boot and pull loop; `prepare`
// adjusts the request before the boot (dcpi stat: counting instead of
// sampling), `extra_flags` are the caller's own flags. nullopt when only the
// QEMU command was printed.
std::optional<FinishedRun> execute_run(const std::vector<std::string>& all_arguments,
                                       const std::function<void(RunRequest&)>& prepare,
                                       bool summary) {
  std::vector<std::string> arguments = all_arguments;
  const std::optional<ProgramCommand> program_command = take_program_command(arguments);
  for (std::string& argument : arguments)  // perf's spelling (issue 28)
    if (argument == "-g") argument = "--call-graph";
  std::vector<GuestOutput> outputs;
  for (const std::string& value : take_repeated_option(arguments, "output")) {
    try {
      outputs.push_back(parse_guest_output(value));
    } catch (const std::invalid_argument& error) {
      throw UsageError(error.what());
    }
  }
  const ParsedOptions options(
      arguments, {{"mix",
                   "workloads",
                   "cpus",
                   "db",
                   "epoch",
                   "period",
                   "period-range",
                   "seed",
                   "realtime",
                   "events",
                   "build",
                   "palcode",
                   "kernel",
                   "initrd",
                   "memory",
                   "interval",
                   "timeout",
                   "gdb-port",
                   "transport",
                   "values",
                   "values-module",
                   "values-capture",
                   "append",
                   "plugin",
                   "com2-port",
                   "machine",
                   "truth",
                   "model",
                   "stack-bytes",
                   "profileme-interval",
                   "profileme-paired"},
                  {"no-profile", "quiet", "json", "print-qemu-command", "no-gdb", "no-initrd",
                   "contexts", "paths", "call-graph", "profileme"}});
  RunRequest run = parse_run_options(options);
  for (const GuestOutput& output : outputs) run.outputs.push_back(output.guest);
  if (prepare) prepare(run);
  std::unique_ptr<BundledInitrd> bundled;
  if (program_command) {
    if (options.value("mix") || options.value("workloads") || options.flag("print-qemu-command"))
      throw UsageError("-- PROGRAM goes without --mix, --workloads and --print-qemu-command");
    const std::filesystem::path shell = shell_for_build(build_directory(options));
    if (shell.empty() && !options.flag("quiet"))
      std::cerr << "dcpi run: no /bin/sh in the guest (dash comes with the real mix, "
                   "toolchain/build-real-programs.sh): system() and popen() fail there\n";
    bundled = BundledInitrd::for_programs(*program_command, run.machine.initrd,
                                          run.machine.memory_mb, shell);
    if (!options.flag("quiet"))
      for (const std::string& file : bundled->argument_files())
        std::cerr << "dcpi run: a host file as an argument, copied into the guest: " << file
                  << '\n';
  } else if (const auto mix = options.value("mix");
             mix && !options.value("initrd") && !options.flag("print-qemu-command")) {
    bundled = BundledInitrd::for_mix(build_directory(options), *mix, run.machine.initrd,
                                     run.machine.memory_mb);
  }
  if (bundled) bundled->apply_to(run);  // its initrd and mix; its images with their host files
  if (options.flag("print-qemu-command")) {
    std::cout << shell_quoted(qemu_command_for(run)) << '\n';
    return std::nullopt;
  }
  // The program's stdout to stdout (stderr under --json, whose stdout is the
  // summary), its stderr to stderr, the system's and dcpi's to stderr unless
  // --quiet (issue 30).
  const bool quiet = options.flag("quiet");
  ConsoleSplitter splitter(options.flag("json") ? std::cerr : std::cout, std::cerr,
                           quiet ? nullptr : &std::cerr);
  // The guest's isatty() follows where each stream goes, so its stdio buffers
  // as it would under Linux with the same redirection (`dcpi run ... > out`).
  run.output_terminal = isatty(options.flag("json") ? STDERR_FILENO : STDOUT_FILENO) == 1;
  run.error_terminal = isatty(STDERR_FILENO) == 1;
  std::ostream console(&splitter);
  run.console = &console;
  if (!quiet) run.progress = &std::cerr;
  FinishedRun finished{run, run_profiled_workload(run), {}, 0};
  const RunResult& result = finished.result;
  splitter.flush_partial();
  if (result.stop_signal != 0) {  // the shell's convention: 128 + the signal
    std::cerr << "dcpi run: " << result.stop_reason << "; the " << result.totals.samples
              << " samples pulled before it are stored in " << run.database.string() << '\n';
    finished.exit_status = 128 + result.stop_signal;
    return finished;
  }
  // The verdicts come from the host channel, never from the console a
  // profiled program writes to (issue 30).
  finished.outcome = read_workload_outcome(result.host_messages);
  const WorkloadOutcome& outcome = finished.outcome;
  if (summary) print_summary(run, result, outcome, options.flag("json"));
  const bool outputs_written = write_guest_outputs(result.host_messages, outputs, std::cerr);
  // -- PROGRAM: the program's own status, like perf record ./a.out (issue 15);
  // any other failure init reports fails the run too.
  if (bundled && !bundled->guest_programs().empty()) {
    const int status =
        programs_exit_status(result.host_messages, bundled->guest_programs(), std::cerr);
    if (status != 0 || !outcome.failed()) {
      finished.exit_status = status != 0 ? status : outputs_written ? 0 : 1;
      return finished;
    }
  }
  for (const std::string& failure : outcome.failures)
    std::cerr << "dcpi run: the workload failed: " << failure << '\n';
  finished.exit_status = outcome.failed() || !outputs_written ? 1 : 0;
  return finished;
}

int run_run_command(const std::vector<std::string>& arguments) {
  const std::optional<FinishedRun> finished = execute_run(arguments, nullptr, true);
  return finished ? finished->exit_status : 0;
}

}  // namespace dcpi
