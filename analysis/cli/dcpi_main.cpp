// dcpi: the command-line front end. Subcommands live in a table so that new
// tools (prof, list, calc, ...) are one entry each.
#include <algorithm>
#include <array>
#include <csignal>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/reports/terminal_text.h"

namespace {

using dcpi::Command;

int run_help(const std::vector<std::string>& arguments);

const std::array kCommands = {
    Command{"run", "boot workloads under QEMU, profile them, store the profile database",
            dcpi::kRunUsage, dcpi::run_run_command},
    Command{"stat", "count events per process over a whole run (perf stat, perfex); no sampling",
            dcpi::kStatUsage, dcpi::run_stat_command},
    Command{"ingest", "transfer records (live or recorded) into the profile database",
            dcpi::kIngestUsage, dcpi::run_ingest_command},
    Command{"db", "check, show or merge profile databases: dcpi db check|show|merge",
            dcpi::kDbUsage, dcpi::run_db_command},
    Command{"bench-db", "benchmark ingestion and database size on synthetic profiles",
            dcpi::kBenchDbUsage, dcpi::run_bench_db_command},
    Command{"prof", "samples per procedure, image, pid or CPU, with % and cum% (dcpiprof)",
            dcpi::kProfUsage, dcpi::run_prof_command},
    Command{"profileme", "ProfileMe's instruction samples: executions, event rates, latencies",
            dcpi::kProfileMeUsage, dcpi::run_profileme_command},
    Command{"procs", "the run's processes and threads: parent, program, status, samples",
            dcpi::kProcsUsage, dcpi::run_procs_command},
    Command{"tree", "the exact calling context tree (dcpi run --contexts), top-down or bottom-up",
            dcpi::kTreeUsage, dcpi::run_tree_command},
    Command{"paths", "exact Ball-Larus path profiles (dcpi run --paths)", dcpi::kPathsUsage,
            dcpi::run_paths_command},
    Command{"list", "a procedure's instructions annotated with samples (dcpilist)",
            dcpi::kListUsage, dcpi::run_list_command},
    Command{"stats", "per-procedure variation across runs or epochs (dcpistats)", dcpi::kStatsUsage,
            dcpi::run_stats_command},
    Command{"diff", "two profiles side by side, biggest shifts first", dcpi::kDiffUsage,
            dcpi::run_diff_command},
    Command{"export", "write samples as pprof profile.proto (gzipped) or JSON", dcpi::kExportUsage,
            dcpi::run_export_command},
    Command{"report", "the whole profile as one HTML page with listings and CFGs (--html)",
            dcpi::kReportUsage, dcpi::run_report_command},
    Command{"values", "value hotlists per instruction; --invariant finds semi-invariants",
            dcpi::kValuesUsage, dcpi::run_values_command},
    Command{"calc", "per-instruction frequency, CPI, stalls and culprits of a procedure",
            dcpi::kCalcUsage, dcpi::run_calc_command},
    Command{"score", "frequency estimates against exact counts (Figures 8 and 9)",
            dcpi::kScoreUsage, dcpi::run_score_command},
    Command{"bench-calc", "benchmark dcpi calc's analysis per MB of code", dcpi::kBenchCalcUsage,
            dcpi::run_bench_calc_command},
    Command{"help", "show this list, or a command's usage: dcpi help COMMAND",
            "usage: dcpi help [COMMAND]\n", run_help},
};

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

const Command* find_command(std::string_view name) {
  for (const Command& command : kCommands)
    if (command.name == name) return &command;
  return nullptr;
}

// "; did you mean 'prof'?" for a mistyped command name.
std::string command_hint(const std::string& typed) {
  std::vector<std::string> names;
  for (const Command& command : kCommands) names.emplace_back(command.name);
  return dcpi::closest_name_hint(typed, names);
}

void print_overview(std::ostream& out) {
  out << "usage: dcpi COMMAND [OPTIONS]\n       dcpi --version\n\ncommands:\n";
  size_t width = 0;
  for (const Command& command : kCommands) width = std::max(width, command.name.size());
  for (const Command& command : kCommands)
    out << "  " << command.name << std::string(width + 2 - command.name.size(), ' ')
        << command.summary << '\n';
  out << "\nEvery report reads ./dcpi.db unless given --db; 'dcpi help COMMAND' lists its "
         "options.\n";
}

// "dcpi 0.16.0 (git e045191-dirty)": CMake's project version, and git
// describe when the build was configured from a checkout.
void print_version(std::ostream& out) {
  const std::string described = DCPI_GIT_DESCRIBE;
  out << "dcpi " << DCPI_VERSION << (described.empty() ? "" : " (git " + described + ")") << '\n';
}

int run_help(const std::vector<std::string>& arguments) {
  if (arguments.empty()) {
    print_overview(std::cout);
    return 0;
  }
  const Command* command = find_command(arguments[0]);
  if (!command)
    throw dcpi::UsageError("no command named '" + arguments[0] + "'" + command_hint(arguments[0]));
  std::cout << command->usage;
  return 0;
}

bool asks_for_help(const std::vector<std::string>& arguments) {
  for (const std::string& argument : arguments)
    if (argument == "--help" || argument == "-h") return true;
  return false;
}

// The commands whose output is a text report naming the profiled programs'
// symbols, paths and source files: their output, and their errors (which
// name procedures too), reach the terminal with control characters escaped
// (issue 30). Not run (the program's own output is echoed as it is), export
// (binary pprof) or report (HTML, escaped as HTML).
bool writes_text_report(std::string_view name) {
  for (std::string_view report :
       {"prof", "tree", "list", "stats", "diff", "values", "calc", "score", "db"})
    if (name == report) return true;
  return false;
}

int run_command(const Command& command, const std::vector<std::string>& arguments) {
  std::optional<dcpi::TerminalSafeOutput> safe_out, safe_errors;
  if (writes_text_report(command.name)) {
    safe_out.emplace(std::cout);
    safe_errors.emplace(std::cerr);
  }
  const std::string prefix = "dcpi " + std::string(command.name) + ": ";
  if (asks_for_help(arguments)) {
    std::cout << command.usage;
    return 0;
  }
  try {
    return command.run(arguments);
  } catch (const dcpi::UsageError& error) {
    std::cerr << prefix << error.what() << " (see 'dcpi help " << command.name << "')\n";
    return kExitUsage;
  } catch (const std::exception& error) {
    std::cerr << prefix << error.what() << '\n';
    return kExitFailure;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) must fail a write with EFBIG, reported and
  // cleaned up like a full disk, not kill dcpi silently (issue 18).
  std::signal(SIGXFSZ, SIG_IGN);
  const std::vector<std::string> arguments(argv + 1, argv + argc);
  if (arguments.empty() || arguments[0] == "--help" || arguments[0] == "-h") {
    print_overview(arguments.empty() ? std::cerr : std::cout);
    return arguments.empty() ? kExitUsage : 0;
  }
  if (arguments[0] == "--version") {
    print_version(std::cout);
    return 0;
  }
  const Command* command = find_command(arguments[0]);
  if (!command) {
    std::cerr << "dcpi: unknown command '" << arguments[0] << "'" << command_hint(arguments[0])
              << " (see 'dcpi help')\n";
    return kExitUsage;
  }
  return run_command(*command, {arguments.begin() + 1, arguments.end()});
}
