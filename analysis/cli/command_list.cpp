// `dcpi list`: one procedure's instructions annotated with their samples,
// with source lines interleaved where DWARF has them (DCPI §3: the tools that
// "annotate source and assembly code with sample counts").
#include <algorithm>
#include <iostream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/listing_output.h"
#include "analysis/samples/procedure_listing.h"
#include "analysis/values/value_hotlists.h"

namespace dcpi {

const std::string_view kListUsage =
    "usage: dcpi list [--db DIR] --procedure NAME [--images DIR[:DIR...]] [--image NAME]\n"
    "                 [--pid N] [--cpu N] [--epoch N[,N...]|all] [--no-source] [--values]\n"
    "                 [--sort address|samples] [--profileme] [--json]\n"
    "\n"
    "The procedure's instructions with the samples at each one and their share of\n"
    "the procedure's samples; source lines are interleaved when the image has\n"
    "DWARF line information. On QEMU one cycle is one instruction, so samples are\n"
    "proportional to execution counts; there are no stalls to show.\n"
    "  --procedure  function name (or, in assembly without .type, a label), a C++ name\n"
    "               without parameters or templates (std::sort), a glob ('std::map*')\n"
    "               or an address inside it (0x120003e80)\n"
    "  --images     directories holding the ELF files; the run recorded where they are\n"
    "               (the database's image catalogue, the build-id cache), so only to\n"
    "               override those\n"
    "  --image      only this image, when several have the procedure\n"
    "  --no-source  do not interleave source lines\n"
    "  --sort       address (default: the procedure in order) or samples (perf annotate's\n"
    "               hottest first: the instructions with samples, most first, each with\n"
    "               its source line)\n"
    "  --values     add each instruction's value hotlist (runs with dcpi run --values;\n"
    "               seed 001 §2.4): the kind seen most there, its top values and shares\n"
    "  --profileme  the procedure's ProfileMe records per instruction instead (dcpi\n"
    "               profileme --procedure NAME: executions, event rates, latencies)\n"
    "  --json       JSON: {listings: [{image, procedure, instructions: [...]}]}\n";

int run_list_command(const std::vector<std::string>& arguments) {
  // Issue 27: `dcpi list --profileme` is dcpi profileme's per-instruction listing.
  if (std::find(arguments.begin(), arguments.end(), "--profileme") != arguments.end()) {
    std::vector<std::string> rest;
    for (const std::string& argument : arguments)
      if (argument != "--profileme") rest.push_back(argument);
    if (std::find(rest.begin(), rest.end(), "--procedure") == rest.end() &&
        std::none_of(rest.begin(), rest.end(),
                     [](const std::string& a) { return a.starts_with("--procedure="); }))
      throw UsageError("missing --procedure");
    return run_profileme_command(rest);
  }
  const ParsedOptions options(
      arguments, {{"db", "procedure", "images", "image", "pid", "cpu", "epoch", "sort"},
                  {"json", "no-source", "values"}});
  const ProfileDatabase database = ProfileDatabase::open(options.database());
  const std::string name = options.required("procedure");
  ImageResolver resolver = image_resolver(options, {options.database()});
  const SampleFilter filter = parse_sample_filter(options);
  const SampleSet samples = load_samples(database, filter);
  std::vector<std::string> warnings;
  const std::string order = options.value("sort").value_or("address");
  if (order != "address" && order != "samples")
    throw UsageError("--sort is address or samples, not '" + order + "'");
  auto listings = list_procedure(samples, resolver, name, nullptr, warnings);
  if (order == "samples")
    for (ProcedureListing& listing : listings) order_by_samples(listing);
  std::vector<MergedKind> values;  // --values: the hotlists of every kind
  if (options.flag("values"))
    values = load_value_hotlists(database, std::nullopt, {}, filter.epochs);
  if (options.flag("values") && values.empty())
    warnings.push_back("no value samples in the database (run with dcpi run --values N/k)");
  if (options.flag("json")) {
    print_listings_json(listings, warnings, values, std::cout);
    return 0;
  }
  for (const std::string& warning : warnings) std::cerr << "dcpi list: " << warning << '\n';
  for (const ProcedureListing& listing : listings)
    print_listing(listing, !options.flag("no-source"), values, std::cout);
  return 0;
}

}  // namespace dcpi
