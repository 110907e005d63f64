// `dcpi bench-calc`: how fast dcpicalc's analysis runs over whole images
// (DCPI §6.2: "approximately three minutes to analyze the suite of 17
// programs, which total roughly 26MB of executables"). Every procedure of
// each image is decoded, given a CFG, frequency classes, estimates,
// propagation, culprits and a summary, with synthetic samples on every
// instruction; the table gives seconds per MB of code.
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "analysis/calc/frontend/calc_bench.h"
#include "analysis/calc/frontend/inputs.h"
#include "analysis/calc/frontend/parallel_procedures.h"
#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/reports/bench_calc_output.h"
#include "profiledb/tab_text.h"

namespace dcpi {

const std::string_view kBenchCalcUsage =
    "usage: dcpi bench-calc --images ELF[,ELF...] [--model qemu|ev5] [--threads N] [--json FILE]\n"
    "\n"
    "Analyses every procedure of each image as dcpi calc --all would (decode, CFG,\n"
    "cycle equivalence, scheduling, estimation, propagation, culprits, summary) with\n"
    "synthetic samples on every instruction, and prints the time per MB of code;\n"
    "\"flow s\" is the analysis again with --estimate flow (minimum-cost flow), \"flow x\"\n"
    "its time over DCPI's analysis (\"seconds\" less loading the image).\n"
    "--threads N analyses N procedures at once (default: the machine's processors,\n"
    "as dcpi calc --all does; 1 for single-thread figures).\n"
    "Accuracy against exact counts (Figures 8, 9): tests/bench/bench_calc_accuracy.py.\n";

int run_bench_calc_command(const std::vector<std::string>& arguments) {
  const ParsedOptions options(arguments, {.with_value = {"images", "model", "threads", "json"}});
  std::vector<std::string> images;
  const std::string list = options.required("images");  // split_fields views it
  for (const std::string_view image : split_fields(list, ','))
    if (!image.empty()) images.emplace_back(image);
  const std::string model_name = options.value("model").value_or("ev5");
  const auto model = make_model(model_name);
  if (!model) throw UsageError("--model must be qemu or ev5, not '" + model_name + "'");

  size_t threads = default_analysis_threads();
  if (const auto text = options.value("threads")) {
    const int n = std::atoi(text->c_str());
    if (n < 1 || n > 64 || std::to_string(n) != *text)
      throw UsageError("--threads must be 1 to 64, not '" + *text + "'");
    threads = static_cast<size_t>(n);
  }
  std::vector<BenchRow> rows;
  for (const std::string& image : images) rows.push_back(bench_image(image, *model, threads));

  print_bench_calc(rows, std::string(model->name()), std::cout);
  if (const auto path = options.value("json")) {
    std::ofstream out(*path);
    print_bench_calc_json(rows, std::string(model->name()), out);
    if (!out) throw std::runtime_error("cannot write " + *path);
  }
  return 0;
}

}  // namespace dcpi
