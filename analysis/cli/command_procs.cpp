// `dcpi procs`: the process table of each epoch (issue 29): every process
// with its parent, program, argv[0], exit status, start and end cycle and
// samples, then every thread with its process, name and samples. What `ps
// -eLf` would have shown for the run, and the names `dcpi prof --by pid,tid`
// uses.
#include <iostream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/procs_output.h"
#include "analysis/samples/process_listing.h"

namespace dcpi {

const std::string_view kProcsUsage =
    "usage: dcpi procs [--db DIR] [--epoch N[,N...]|all] [--json]\n"
    "\n"
    "The processes and threads of the profiled run, from each epoch's process table\n"
    "(recorded by dcpi run from the kernel's load map): per process its parent,\n"
    "start and end (guest cycles), exit status, samples (every thread, every event),\n"
    "program and argv[0]; per thread its process, start, end, samples and name (the\n"
    "program's, or what prctl(PR_SET_NAME) / pthread_setname_np set).\n"
    "  --db      the profile database directory (default ./dcpi.db)\n"
    "  --epoch   epochs to list (default: all)\n"
    "  --json    JSON: {epochs: [{epoch, machine, has_table, processes: [{pid, parent,\n"
    "            start, end, wait_status, samples, program, argv0}], threads: [{tid, pid,\n"
    "            start, end, wait_status, samples, name}]}]}\n";

int run_procs_command(const std::vector<std::string>& arguments) {
  const ParsedOptions options(arguments, {{"db", "epoch"}, {"json"}});
  const ProfileDatabase database = ProfileDatabase::open(options.database());
  const std::vector<EpochProcesses> epochs =
      list_processes(load_samples(database, parse_sample_filter(options)));
  if (options.flag("json"))
    print_procs_json(epochs, std::cout);
  else
    print_procs_text(epochs, std::cout);
  return 0;
}

}  // namespace dcpi
