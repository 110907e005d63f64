#include "analysis/reports/culprit_score_output.h"

#include <cstdio>

#include "analysis/reports/report_output.h"

namespace dcpi {

namespace {

void print_row(const std::string& name, const calc::CauseScore& s, std::ostream& out) {
  char line[200];
  std::snprintf(line, sizeof line, "  %-12s %14.0f %8s %8s %8llu %8llu %10s\n", name.c_str(),
                s.true_cycles, share_text(s.covered_cycles, s.true_cycles).c_str(),
                share_text(s.seen_covered_cycles, s.seen_true_cycles).c_str(),
                static_cast<unsigned long long>(s.listed), static_cast<unsigned long long>(s.real),
                share_text(s.real_weight, s.listed_weight).c_str());
  out << line;
}

void write_cause(JsonWriter& json, const calc::CauseScore& s) {
  json.begin_object().key("true_cycles").real(s.true_cycles, 12);
  json.key("covered_cycles").real(s.covered_cycles, 12);
  json.key("recall").real(s.true_cycles > 0 ? std::optional(s.recall()) : std::nullopt, 6);
  json.key("seen_true_cycles").real(s.seen_true_cycles, 12);
  json.key("seen_recall")
      .real(s.seen_true_cycles > 0 ? std::optional(s.seen_recall()) : std::nullopt, 6);
  json.field("listed", s.listed).field("real", s.real);
  json.key("precision").real(s.listed_weight > 0 ? std::optional(s.precision()) : std::nullopt, 6);
  json.key("cycle_precision")
      .real(s.listed_weight > 0 ? std::optional(s.cycle_precision()) : std::nullopt, 6);
  // precision's terms, so that runs can be pooled exactly (bench_ev5)
  json.key("listed_weight").real(s.listed_weight, 12);
  json.key("real_weight").real(s.real_weight, 12);
  json.field("ruled_out", s.ruled_out).key("ruled_out_weight").real(s.ruled_out_weight, 12);
  json.key("ruled_out_true_cycles").real(s.ruled_out_true_cycles, 12);
  json.end_object();
}

std::string listed_text(const std::vector<isa::StallCause>& listed) {
  if (listed.empty()) return "nothing";
  std::string text;
  for (isa::StallCause cause : listed) {
    if (!text.empty()) text += ",";
    text += isa::truth_name(cause);
  }
  return text;
}

// Where recall was lost: the largest true stalls whose cause was not listed.
void print_missed(const calc::CulpritScores& scores, std::ostream& out) {
  const auto missed = scores.largest_missed(8);
  if (missed.empty()) return;
  out << "\nLargest true stalls dcpicalc did not list (PC, cause, culprit, true cycles; listed "
         "instead):\n";
  for (const calc::MissedStall& m : missed) {
    char line[256];
    std::snprintf(
        line, sizeof line, "  %12llx  %-10s %12s %14.0f  %s\n",
        static_cast<unsigned long long>(m.address), std::string(isa::truth_name(m.cause)).c_str(),
        m.culprit ? hex_digits(*m.culprit).c_str() : "-", m.cycles, listed_text(m.listed).c_str());
    out << line;
  }
}

// Issue 25 item 7: causes worth > 5 % of a procedure that dcpicalc never
// named in it.
void print_neglected(const calc::CulpritScores& scores, std::ostream& out) {
  if (scores.neglected.empty()) return;
  out << "\nCauses dcpicalc never named in a procedure where the truth gives them more than\n"
         "5 % of its cycles (procedure, cause, true stall cycles, share, of them at instructions\n"
         "worth >= 4 samples):\n";
  for (const calc::NeglectedCause& n : scores.neglected) {
    char line[320];
    std::snprintf(line, sizeof line, "  %-32s %-10s %14.0f %7s %14.0f\n", n.procedure.c_str(),
                  std::string(isa::truth_name(n.cause)).c_str(), n.true_cycles,
                  share_text(n.true_cycles, n.procedure_cycles).c_str(), n.seen_true_cycles);
    out << line;
  }
}

}  // namespace

void print_culprit_scores(const calc::CulpritScores& scores, std::ostream& out) {
  out << "\nCulprits (DCPI 6.3) against the truth: recall = share of the true dynamic stall\n"
         "cycles whose cause (and culprit PC, where both name one) dcpicalc listed; precision =\n"
         "share of the listed culprits, weighted by their instruction's estimated stall cycles,\n"
         "that the truth confirms; seen = recall over the instructions whose true stall is\n"
         "worth at least 4 samples (what sampling can show at all):\n";
  char header[200];
  std::snprintf(header, sizeof header, "  %-12s %14s %8s %8s %8s %8s %10s\n", "cause",
                "true cycles", "recall", "seen", "listed", "real", "precision");
  out << header;
  for (const auto& [cause, score] : scores.causes)
    print_row(std::string(isa::truth_name(cause)), score, out);
  print_row("overall", scores.overall(), out);
  double estimated = 0, exact = 0;
  for (const calc::StallEstimate& s : scores.stalls) {
    estimated += s.estimated;
    exact += s.exact;
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "\nStall cycles per instruction (dcpicalc's F x period x (CPI - M) against the "
                "truth's\ncycles - M x executions), %zu instructions: estimated %.0f, true %.0f; "
                "mean relative\nerror %s; true stall cycles within 10/25/50 %%: %s %s %s\n",
                scores.stalls.size(), estimated, exact,
                share_text(scores.mean_relative_error(), 1).c_str(),
                share_text(scores.fraction_within(10), 1).c_str(),
                share_text(scores.fraction_within(25), 1).c_str(),
                share_text(scores.fraction_within(50), 1).c_str());
  out << line;
  print_missed(scores, out);
  print_neglected(scores, out);
}

void print_event_effect(const calc::CulpritScores& with, const calc::CulpritScores& without,
                        std::ostream& out) {
  out << "\nWhat the event samples changed (DCPI 6.3; without = --no-events): recall and\n"
         "precision per cause; cycles = precision counting of each listed culprit only the\n"
         "cycles the truth confirms; ruled out = candidates dropped for want of their event,\n"
         "the estimated stall cycles at them, and the truth's cycles of that cause there:\n";
  char line[260];
  std::snprintf(line, sizeof line, "  %-12s %7s %7s %9s %7s %7s %7s %6s %12s %11s\n", "cause",
                "recall", "without", "precision", "without", "cycles", "without", "ruled",
                "est. cycles", "true there");
  out << line;
  const auto row = [&](const std::string& name, const calc::CauseScore& a,
                       const calc::CauseScore& b) {
    std::snprintf(line, sizeof line, "  %-12s %7s %7s %9s %7s %7s %7s %6llu %12.0f %11.0f\n",
                  name.c_str(), share_text(a.covered_cycles, a.true_cycles).c_str(),
                  share_text(b.covered_cycles, b.true_cycles).c_str(),
                  share_text(a.real_weight, a.listed_weight).c_str(),
                  share_text(b.real_weight, b.listed_weight).c_str(),
                  share_text(a.confirmed_weight, a.listed_weight).c_str(),
                  share_text(b.confirmed_weight, b.listed_weight).c_str(),
                  static_cast<unsigned long long>(a.ruled_out), a.ruled_out_weight,
                  a.ruled_out_true_cycles);
    out << line;
  };
  for (const auto& [cause, score] : with.causes) {
    const auto other = without.causes.find(cause);
    row(std::string(isa::truth_name(cause)), score,
        other == without.causes.end() ? calc::CauseScore{} : other->second);
  }
  row("overall", with.overall(), without.overall());
}

void write_culprit_scores(JsonWriter& json, const calc::CulpritScores& scores) {
  json.begin_object().key("causes").begin_object();
  for (const auto& [cause, score] : scores.causes) {
    json.key(std::string(isa::truth_name(cause)));
    write_cause(json, score);
  }
  json.end_object().key("overall");
  write_cause(json, scores.overall());
  double estimated = 0, exact = 0;
  for (const calc::StallEstimate& s : scores.stalls) {
    estimated += s.estimated;
    exact += s.exact;
  }
  json.key("stall_cycles").begin_object().field("instructions", uint64_t{scores.stalls.size()});
  json.key("estimated").real(estimated, 12).key("exact").real(exact, 12);
  json.key("mean_relative_error").real(scores.mean_relative_error(), 6);
  for (int percent : {10, 25, 50})
    json.key("within_" + std::to_string(percent)).real(scores.fraction_within(percent), 6);
  json.end_object().key("missed").begin_array();
  for (const calc::MissedStall& m : scores.largest_missed(20)) {
    json.begin_object().key("pc").address(m.address);
    json.field("cause", std::string(isa::truth_name(m.cause)));
    if (m.culprit) json.key("culprit").address(*m.culprit);
    json.key("cycles").real(m.cycles, 12).key("listed").begin_array();
    for (isa::StallCause cause : m.listed) json.value(isa::truth_name(cause));
    json.end_array().end_object();
  }
  json.end_array().key("neglected").begin_array();
  for (const calc::NeglectedCause& n : scores.neglected) {
    json.begin_object().field("procedure", n.procedure);
    json.field("cause", std::string(isa::truth_name(n.cause)));
    json.key("true_cycles").real(n.true_cycles, 12);
    json.key("seen_true_cycles").real(n.seen_true_cycles, 12);
    json.key("procedure_cycles").real(n.procedure_cycles, 12).end_object();
  }
  json.end_array().end_object();
}

}  // namespace dcpi
