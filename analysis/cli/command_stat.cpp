// `dcpi stat` (issue 26 item 4): count a whole program instead of sampling
// it, as perf stat and the R10000's perfex (seed 003) do. The run is dcpi
// run's (run_execution.h) with sampling off and the kernel's counting mode
// on (kernel count=): per-process virtual counters saved and restored at
// every context switch, a reaped child's totals added to its parent
// (IRIX's rule), each process's totals sent at its end (load-map kCounts)
// and kept in the database's process table. This file parses the options
// and picks the report.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/run_execution.h"
#include "analysis/cli/stat_truth.h"
#include "analysis/reports/stat_output.h"
#include "analysis/samples/process_counts.h"
#include "firmware/events.h"
#include "profiledb/process_table.h"
#include "profiledb/profile_db.h"

namespace dcpi {

const std::string_view kStatUsage =
    "usage: dcpi stat [-e EVENTS] [-a] [--json] [--cpus N] [--machine qemu|ev5] [--db DIR]\n"
    "                 [dcpi run's options] -- PROGRAM [ARGS...]\n"
    "       dcpi stat [-e EVENTS] [-a] [--json] [--mix NAME | --workloads A,B] [...]\n"
    "\n"
    "Runs the program (or the mix) like dcpi run, with sampling off and the kernel\n"
    "counting events per process instead (the R10000 paper's virtual counters: saved\n"
    "and restored at each context switch; a child's totals go to the parent that waits\n"
    "for it), and prints each program's counts as perf stat and perfex do.\n"
    "  -e, --events  what to count, comma-separated: cycles (always: the process's time,\n"
    "               kernel mode included), instructions (qemu machine: equal to cycles under\n"
    "               icount; ev5: counter 0's issues, user mode), and on --machine ev5 the\n"
    "               21164's counter-1 events loads, stores, nonissue and issue1-issue4\n"
    "               (cycles nothing or 1-4 instructions issued) and its counter-2 events\n"
    "               imiss, dmiss, branchmp, itbmiss, dtbmiss, longstalls (stalls over 15\n"
    "               cycles), pcmispredict (jump targets mispredicted), counted in user\n"
    "               mode only.\n"
    "               Counters 1 and 2 count at once; more than one event of a counter\n"
    "               share it by time (rotated every scheduler tick): each shows the share\n"
    "               of the time it was counted and count / share projected. Default:\n"
    "               cycles,instructions (qemu); instructions and every counter-2 event\n"
    "               (ev5)\n"
    "  -a           every process on its own and the whole machine's total, instead of\n"
    "               each program init started with its waited-for descendants\n"
    "  --json       the counts as JSON on stdout (the programs' output goes to stderr)\n"
    "  --db         keep the database (the counts are in epoch-N/processes); default: a\n"
    "               temporary one, removed after\n"
    "Derived figures: IPC and CPI, events per 1000 instructions, D-cache misses per 1000\n"
    "loads (with loads and dmiss), and perfex's estimated\n"
    "time (count x a typical cost: 8 cycles for an I- or D-cache miss served by the\n"
    "S-cache, 25 for a TB miss, 5 for a mispredict), which ignores overlap; with\n"
    "--truth FILE (ev5) the model's real stall cycles of each event's cause are printed\n"
    "beside it. See docs/counting-mode.md.\n";

namespace {

constexpr EventSet kCycles = event_bit(Event::kCycles);
// Counter 0's issues selection (the 21164 HRM), user mode: instructions.
constexpr EventSet kInstructions = event_bit(Event::kIssues);

struct StatOptions {
  std::string events;  // -e; empty: the machine's default
  bool all = false;
  bool json = false;
  bool keep_database = false;
  std::vector<std::string> run_arguments;  // dcpi run's
};

// Takes -e/--events, -a and notes --json/--db in the options before "--";
// the rest (and everything after "--") is dcpi run's.
StatOptions take_stat_options(const std::vector<std::string>& arguments) {
  StatOptions stat;
  const auto dash = std::find(arguments.begin(), arguments.end(), "--");
  for (auto it = arguments.begin(); it != dash; ++it) {
    const std::string& a = *it;
    if (a == "-e" || a == "--events") {
      if (it + 1 == dash) throw UsageError(a + " needs a list of events, e.g. -e cycles,dmiss");
      stat.events = *++it;
    } else if (a.starts_with("--events=")) {
      stat.events = a.substr(9);
    } else if (a == "-a") {
      stat.all = true;
    } else if (a == "--no-profile" || a == "--values" || a == "--call-graph" || a == "-g") {
      throw UsageError("dcpi stat counts and never samples: " + a + " belongs to dcpi run");
    } else {
      stat.json |= a == "--json";
      stat.keep_database |= a == "--db" || a.starts_with("--db=");
      stat.run_arguments.push_back(a);
    }
  }
  stat.run_arguments.insert(stat.run_arguments.end(), dash, arguments.end());
  return stat;
}

EventSet counting_set(const std::string& text, const std::string& machine) {
  // The default leaves counter 1 (loads, stores) off: ask for it with -e.
  if (text.empty()) return machine == "ev5" ? (kCycles | kInstructions | kCounter2Events) : kCycles;
  EventSet set = kCycles;
  std::stringstream list(text);
  for (std::string name; std::getline(list, name, ',');) {
    if (name == "cycles") continue;
    if (name == "instructions") {  // qemu: the cycles themselves (icount)
      if (machine == "ev5") set |= kInstructions;
      continue;
    }
    const auto known = std::find(std::begin(kEventNames), std::end(kEventNames), name);
    const EventSet bit =
        known == std::end(kEventNames) ? 0 : EventSet{1} << (known - std::begin(kEventNames));
    if (bit == 0) {
      const std::vector<std::string> names(std::begin(kEventNames), std::end(kEventNames));
      throw UsageError("unknown event '" + name + "'" + closest_name_hint(name, names));
    }
    if (!(bit & kCountableOnEv5))
      throw UsageError("'" + name + "' cannot be counted: neither machine models it");
    if (machine != "ev5")
      throw UsageError("the qemu machine cannot count '" + name +
                       "': QEMU has no caches or pipeline events, only cycles and "
                       "instructions; the 21164 model counts it: --machine ev5");
    set |= bit;
  }
  return set;
}

// The process table the run left: its last epoch's.
ProcessTable counted_processes(const FinishedRun& finished) {
  const ProfileDatabase db = ProfileDatabase::open(finished.run.database);
  std::vector<uint64_t> epochs = db.epochs();
  std::reverse(epochs.begin(), epochs.end());
  for (const uint64_t epoch : epochs) {
    if (epoch < finished.result.epoch_base) break;  // the run's epochs start at epoch_base
    if (auto table = read_process_table(db.directory() / epoch_directory_name(epoch)))
      return *table;
  }
  return {};
}

std::filesystem::path temporary_database() {
  std::string pattern = (std::filesystem::temp_directory_path() / "dcpi-stat.XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create " + pattern);
  return std::filesystem::path(pattern) / "db";
}

}  // namespace

int run_stat_command(const std::vector<std::string>& arguments) {
  StatOptions stat = take_stat_options(arguments);
  std::filesystem::path scratch;
  if (!stat.keep_database) {
    scratch = temporary_database();
    stat.run_arguments.insert(stat.run_arguments.begin(), {"--db", scratch.string()});
  }
  stat.run_arguments.insert(stat.run_arguments.begin(), "--no-profile");
  std::optional<FinishedRun> finished;
  try {
    finished = execute_run(
        stat.run_arguments,
        [&](RunRequest& run) { run.count_events = counting_set(stat.events, run.timing_machine); },
        false);
  } catch (...) {
    if (!scratch.empty()) std::filesystem::remove_all(scratch.parent_path());
    throw;
  }
  if (!finished) return 0;
  StatReport report{finished->run.timing_machine, finished->run.machine.cpus,
                    stat_rows(counted_processes(*finished), stat.all)};
  if (!scratch.empty()) std::filesystem::remove_all(scratch.parent_path());
  if (!finished->run.truth_file.empty() && finished->run.timing_machine == "ev5")
    add_truth_stalls(finished->run.truth_file, report.rows);
  if (stat.json)
    print_stat_json(report, std::cout);
  else
    print_stat_text(report, std::cerr);
  return finished->exit_status;
}

}  // namespace dcpi
