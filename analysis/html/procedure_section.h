// One procedure's part of the HTML report: the annotated listing (DCPI §3.2:
// samples per instruction, source lines, disassembly) merged with dcpicalc's
// per-instruction estimates (§6: executions, CPI, stall reasons and
// culprits), the procedure summary of Figure 4, value hotlists when the run
// sampled values (seed 001 §2.4), and the control-flow graph drawn by
// Graphviz (cfg_graph.h).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/calc/estimate/procedure_analysis.h"
#include "analysis/calc/frontend/code_image.h"
#include "analysis/calc/model/processor_model.h"
#include "analysis/html/cfg_graph.h"
#include "analysis/samples/path_profile.h"
#include "analysis/samples/profile_table.h"
#include "analysis/samples/profileme_table.h"
#include "analysis/values/value_hotlists.h"

namespace dcpi::html {

struct ProcedureOptions {
  std::string model = "qemu";       // calc's processor model (make_model)
  std::string dot_program = "dot";  // Graphviz, looked up in PATH
  // The run's exact path profiles (dcpi run --paths), whose hottest paths
  // are drawn on each CFG; none: plain CFGs.
  const PathSet* paths = nullptr;
};

class ProcedureSections {
 public:
  ProcedureSections(const SampleSet& samples, ImageResolver& resolver,
                    std::vector<MergedKind> values, ProcedureOptions options);
  ~ProcedureSections();

  // Writes <section id=ANCHOR> for the procedure of `row` (a procedure row
  // of build_report). Problems (no ELF, no symbols) are shown in the section.
  void write(const ReportRow& row, const std::string& anchor, std::ostream& out);

  size_t graphs_drawn() const { return graphs_drawn_; }
  // Why graphs are missing (dot not installed, ...); empty if none is.
  const std::string& graph_problem() const { return graph_problem_; }
  bool has_values() const { return !values_.empty(); }

 private:
  struct ImageData;
  ImageData* image_data(const std::string& image_path);
  std::string draw(const calc::ProcedureAnalysis& analysis, double period,
                   const std::string& anchor, const std::vector<DrawnPath>& paths);
  std::vector<DrawnPath> hot_paths(const std::string& procedure, const std::string& image) const;
  ProfileMeReport profileme_rows(const std::string& procedure) const;

  const SampleSet& samples_;
  ImageResolver& resolver_;
  std::vector<MergedKind> values_;
  ProcedureOptions options_;
  std::unique_ptr<calc::ProcessorModel> model_;
  bool has_profileme_ = false;  // the database holds pm_* profiles (issue 27)
  std::map<std::string, std::unique_ptr<ImageData>> images_;
  size_t graphs_drawn_ = 0;
  std::string graph_problem_;
};

}  // namespace dcpi::html
