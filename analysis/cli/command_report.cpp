// `dcpi report --html FILE`: the profile, annotated code and control-flow
// graphs on one self-contained HTML page (analysis/html/html_page.h;
// docs/reports.md). DCPI's dcpicalc drew annotated CFGs as PostScript; this
// is the same information for a browser.
#include <fstream>
#include <iostream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/html/html_page.h"

namespace dcpi {

const std::string_view kReportUsage =
    "usage: dcpi report --html FILE [--db DIR] [--images DIR[:DIR...]] [--top N|all]\n"
    "                   [--image NAME] [--pid N] [--cpu N] [--epoch N[,N...]|all]\n"
    "                   [--unsampled] [--model qemu|ev5] [--dot PROGRAM]\n"
    "\n"
    "Writes the whole profile as one self-contained HTML page that works opened from\n"
    "disk, offline: the run (machine, CPUs, period, epochs, samples, unknown and\n"
    "dropped), images, procedures, processes and CPUs as bars, the blind-spot\n"
    "summary, and for the top procedures the annotated listing with dcpicalc's\n"
    "estimates, value hotlists (runs with --values) and the control-flow graph\n"
    "(drawn by Graphviz's dot; without it the page says the graphs are missing).\n"
    "  --html    the file to write\n"
    "  --db      the profile database directory (default ./dcpi.db)\n"
    "  --images  directories holding the ELF files (kernel, PALcode, workloads)\n"
    "  --top     procedures given a section, most sampled first (default 10; all)\n"
    "  --unsampled  also the procedures of the sampled images that have no samples\n"
    "            (--image kernel.elf --top all --unsampled: every kernel procedure)\n"
    "  --image, --pid, --cpu, --epoch   only these samples, as in dcpi prof\n"
    "  --model   calc's processor model: qemu or ev5 (default: the run's machine's)\n"
    "  --dot     the Graphviz program that draws the graphs (default: dot in PATH)\n";

int run_report_command(const std::vector<std::string>& arguments) {
  const ParsedOptions options(
      arguments, {{"html", "db", "images", "top", "image", "pid", "cpu", "epoch", "model", "dot"},
                  {"unsampled"}});
  html::HtmlReportRequest request{.database = options.database(),
                                  .filter = parse_sample_filter(options)};
  request.images = image_sources(options.value("images"), {request.database});
  const std::string file = options.required("html");
  const std::string top = options.value("top").value_or("10");
  request.top = top == "all" ? std::nullopt : std::optional<size_t>(parse_number(top, "top"));
  request.model = options.value("model");
  request.dot_program = options.value("dot").value_or("dot");
  request.unsampled = options.flag("unsampled");
  if (request.model && *request.model != "qemu" && *request.model != "ev5")
    throw UsageError("--model must be qemu or ev5, not '" + *request.model + "'");
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + file);
  const html::HtmlReportResult result = html::write_html_report(request, out);
  out.close();
  if (!out) throw std::runtime_error("cannot write " + file + " (disk full?)");
  for (const std::string& warning : result.warnings)
    std::cerr << "dcpi report: " << warning << '\n';
  std::cerr << "dcpi report: wrote " << file << " (" << result.procedures << " procedures, "
            << result.graphs << " graphs)\n";
  return 0;
}

}  // namespace dcpi
