// `dcpi report --html`: the whole profile on one page (DCPI §3's tools in
// one view): an overview of the run, images and procedures as bars by share
// of samples, PID and CPU breakdowns, the blind-spot summary, then the top
// procedures, each with its annotated listing, dcpicalc's estimates and its
// control-flow graph. One self-contained file: CSS inline, graphs as inline
// SVG, no script, no reference to any other file or URL, so it works opened
// from disk, offline (docs/reports.md).
#pragma once
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/samples/sample_set.h"
#include "symbols/image_resolver.h"

namespace dcpi::html {

struct HtmlReportRequest {
  std::string database;            // --db
  ImageSources images;             // --images DIR[:DIR...] and the paths the database recorded
  SampleFilter filter;             // --image, --pid, --cpu, --epoch
  std::optional<size_t> top = 10;  // procedures given a section; nullopt: every one sampled
  bool unsampled = false;          // also the sampled images' procedures without samples
  // calc's processor model; nullopt: the run's machine's (ev5 for an ev5
  // run, else qemu).
  std::optional<std::string> model;
  std::string dot_program = "dot";  // Graphviz
};

struct HtmlReportResult {
  size_t procedures = 0;  // sections written
  size_t graphs = 0;      // control-flow graphs drawn
  std::vector<std::string> warnings;
};

// Throws what the database reader throws for a missing or damaged database.
// A missing `dot` is not an error: the page says the graphs could not be
// drawn and why, and so does a warning.
HtmlReportResult write_html_report(const HtmlReportRequest& request, std::ostream& out);

}  // namespace dcpi::html
