#include "analysis/reports/image_scores_output.h"

#include <cstdio>

#include "analysis/reports/json_writer.h"

namespace dcpi {
namespace {

std::string within_cells(const calc::ErrorHistogram& h) {
  if (h.total_weight() <= 0) return "    -     -     -";
  char cells[48];
  std::snprintf(cells, sizeof cells, "%5.1f %5.1f %5.1f", 100 * h.fraction_within(5),
                100 * h.fraction_within(10), 100 * h.fraction_within(15));
  return cells;
}

std::string culprit_cells(const std::optional<calc::CauseScore>& c) {
  if (!c) return "";
  char cells[32];
  std::snprintf(cells, sizeof cells, "  %6.1f %6.1f", 100 * c->recall(), 100 * c->precision());
  return cells;
}

void write_within(JsonWriter& json, const std::string& key, const calc::ErrorHistogram& h) {
  json.key(key).begin_object();
  for (int percent : {5, 10, 15})
    json.key("within_" + std::to_string(percent)).real(h.fraction_within(percent), 6);
  json.end_object();
}

void write_culprits(JsonWriter& json, const std::optional<calc::CauseScore>& c) {
  if (!c) return;
  json.key("culprits").begin_object();
  json.key("recall").real(c->recall(), 6).key("precision").real(c->precision(), 6);
  json.key("true_stall_cycles").real(c->true_cycles).end_object();
}

}  // namespace

void print_image_scores_text(const ImageScores& scores, std::ostream& out) {
  const bool culprits = scores.pooled_culprits.has_value();
  out << "truth:  " << scores.truth_path << " (machine " << scores.machine << ")\n"
      << "Every image with cycles samples (dcpi score --image NAME for one image's histograms,\n"
         "procedures and outliers). placement: the distance between the samples and the\n"
         "cycles a sample can land on, as a multiple of sampling noise alone (issue 25: <= 1.25),\n"
         "and the instructions with >= 200 expected samples beyond 4 sigma; Figure 8: the share\n"
         "of samples whose estimated count is within 5/10/15 % (DCPI 6.2: 73/87/92 %)"
      << (culprits ? ";\nculprits: recall and precision of dcpicalc's stall causes (DCPI 6.3)" : "")
      << ".\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%9s  %9s %6s  %-17s  %-17s%s  %s\n", "samples", "placement",
                ">4sig", "flow 5/10/15 %", "dcpi 5/10/15 %", culprits ? "  recall   prec" : "",
                "image");
  out << line;
  for (const ImageScoreRow& r : scores.rows) {
    if (!r.not_scored.empty()) {
      std::snprintf(line, sizeof line, "%9s  %s: not scored (%s)\n", "-", r.image.c_str(),
                    r.not_scored.c_str());
      out << line;
      continue;
    }
    char placement[24] = "        -";
    if (r.placement.ratio > 0)
      std::snprintf(placement, sizeof placement, "%8.2fx", r.placement.ratio);
    std::snprintf(line, sizeof line, "%9.0f  %9s %6zu  %-17s  %-17s%s  %s\n", r.samples, placement,
                  r.placement.outliers.size(), within_cells(r.flow).c_str(),
                  within_cells(r.dcpi).c_str(), culprit_cells(r.culprits).c_str(), r.image.c_str());
    out << line;
  }
  std::snprintf(line, sizeof line, "%9.0f  %9s %6s  %-17s  %-17s%s  %s\n",
                scores.pooled_flow.total_weight(), "", "", within_cells(scores.pooled_flow).c_str(),
                within_cells(scores.pooled_dcpi).c_str(),
                culprit_cells(scores.pooled_culprits).c_str(), "all scored images, by samples");
  out << line;
}

void print_image_scores_json(const ImageScores& scores, std::ostream& out) {
  JsonWriter json(out, JsonWriter::Style::kSpaced);
  json.begin_object(JsonWriter::Break::kLines);
  json.field("truth", scores.truth_path).field("machine", scores.machine);
  json.key("images").begin_array(JsonWriter::Break::kLines);
  for (const ImageScoreRow& r : scores.rows) {
    json.begin_object().field("image", r.image).key("samples").real(r.samples);
    if (!r.not_scored.empty()) {
      json.field("not_scored", r.not_scored).end_object();
      continue;
    }
    json.key("placement").begin_object().key("ratio").real(r.placement.ratio, 6);
    json.field("judged", uint64_t{r.placement.judged});
    json.field("beyond_4_sigma", uint64_t{r.placement.outliers.size()});
    json.field("left_out", uint64_t{r.placement.left_out})
        .key("left_out_samples")
        .real(r.placement.left_out_samples)
        .end_object();
    write_within(json, "flow", r.flow);
    write_within(json, "dcpi", r.dcpi);
    write_culprits(json, r.culprits);
    json.end_object();
  }
  json.end_array();
  json.key("all").begin_object().key("samples").real(scores.pooled_flow.total_weight());
  write_within(json, "flow", scores.pooled_flow);
  write_within(json, "dcpi", scores.pooled_dcpi);
  write_culprits(json, scores.pooled_culprits);
  json.end_object().end_object();
  out << '\n';
}

}  // namespace dcpi
