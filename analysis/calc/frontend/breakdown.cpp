#include "analysis/calc/frontend/breakdown.h"

#include <cstdio>

namespace dcpi {

using calc::StallCause;

namespace {

std::string share(double part, double total) {
  if (total <= 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * part / total);
  return text;
}

std::string range(std::pair<double, double> value, double total) {
  if (total <= 0) return "-";
  if (value.first == value.second) return share(value.first, total);
  return share(value.first, total) + " to " + share(value.second, total);
}

std::pair<double, double> dynamic_of(const CycleBreakdown& b, StallCause cause) {
  const auto found = b.dynamic.find(cause);
  return found == b.dynamic.end() ? std::pair{0.0, 0.0} : found->second;
}

void row(std::ostream& out, const std::string& name, const std::string& calc,
         const std::optional<std::string>& truth) {
  char line[160];
  std::snprintf(line, sizeof line, "  %-32s %-20s %s\n", name.c_str(), calc.c_str(),
                truth ? truth->c_str() : "");
  out << line;
}

}  // namespace

void CycleBreakdown::add(const CycleBreakdown& o) {
  total += o.total;
  execution += o.execution;
  slotting += o.slotting;
  dependency += o.dependency;
  functional_unit += o.functional_unit;
  for (const auto& [cause, value] : o.dynamic) {
    dynamic[cause].first += value.first;
    dynamic[cause].second += value.second;
  }
  dynamic_stall += o.dynamic_stall;
  other += o.other;
  unexplained_stall += o.unexplained_stall;
  unexplained_gain += o.unexplained_gain;
  net_sampling_error += o.net_sampling_error;
}

CycleBreakdown breakdown_from_summary(const CalcSummary& s, double period) {
  CycleBreakdown b{.total = s.samples * period, .execution = s.execution * period};
  for (const auto& [name, samples] : s.static_stalls) {
    if (name == "Slotting")
      b.slotting += samples * period;
    else if (name == "FU dependency")
      b.functional_unit += samples * period;
    else
      b.dependency += samples * period;
  }
  for (const auto& [cause, value] : s.dynamic)
    b.dynamic[cause] = {value.first * period, value.second * period};
  b.dynamic_stall = (s.dynamic_total - s.unexplained_gain) * period;
  b.unexplained_stall = s.unexplained_stall * period;
  b.unexplained_gain = s.unexplained_gain * period;
  b.net_sampling_error = s.net_sampling_error * period;
  return b;
}

CycleBreakdown breakdown_from_truth(const calc::GroundTruth& truth, uint64_t start, uint64_t end) {
  CycleBreakdown b;
  for (const auto& [pc, executions] : truth.instructions())
    if (pc >= start && pc < end) b.total += double(truth.cycles(pc));
  double stalls = 0;
  for (const auto& [pc, list] : truth.all_stalls()) {
    if (pc < start || pc >= end) continue;
    for (const calc::TruthStall& s : list) {
      const double cycles = double(s.cycles);
      stalls += cycles;
      if (s.cause == StallCause::kSlotting) {
        b.slotting += cycles;
        continue;
      }
      if (s.cause == StallCause::kDependency) {
        b.dependency += cycles;
        continue;
      }
      b.dynamic_stall += cycles;
      if (isa::is_dynamic(s.cause)) {
        b.dynamic[s.cause].first += cycles;
        b.dynamic[s.cause].second += cycles;
      } else {
        b.other += cycles;
      }
    }
  }
  b.execution = b.total - stalls;
  return b;
}

void print_breakdown(const std::string& title, const CycleBreakdown& calc,
                     const std::optional<CycleBreakdown>& truth, std::ostream& out) {
  const double c = calc.total, t = truth ? truth->total : 0;
  const auto of_truth = [&](double value) -> std::optional<std::string> {
    if (!truth) return std::nullopt;
    return share(value, t);
  };
  const std::optional<std::string> none = truth ? std::optional<std::string>("-") : std::nullopt;
  out << title << '\n';
  row(out, "category", "calc (samples)", truth ? std::optional<std::string>("truth") : none);
  row(out, "Execution (issue)", share(calc.execution, c), of_truth(truth ? truth->execution : 0));
  row(out, "Static: slotting", share(calc.slotting, c), of_truth(truth ? truth->slotting : 0));
  row(out, "Static: dependency", share(calc.dependency, c),
      of_truth(truth ? truth->dependency : 0));
  row(out, "Static: functional unit", share(calc.functional_unit, c), none);
  for (StallCause cause : isa::kFigure4Causes)
    row(out, "Dynamic: " + std::string(isa::stall_cause_name(cause)),
        range(dynamic_of(calc, cause), c),
        truth ? std::optional<std::string>(range(dynamic_of(*truth, cause), t)) : none);
  row(out, "Dynamic: other", "-", of_truth(truth ? truth->other : 0));
  row(out, "Dynamic stalls in all", share(calc.dynamic_stall, c),
      of_truth(truth ? truth->dynamic_stall : 0));
  row(out, "Unexplained stall", share(calc.unexplained_stall, c), none);
  row(out, "Unexplained gain", share(calc.unexplained_gain, c), none);
  row(out, "Net sampling error", share(calc.net_sampling_error, c), none);
  char cycles[64];
  std::snprintf(cycles, sizeof cycles, "%.0f cycles", c);
  char truth_cycles[64];
  std::snprintf(truth_cycles, sizeof truth_cycles, "%.0f cycles", t);
  row(out, "Total", cycles, truth ? std::optional<std::string>(truth_cycles) : none);
}

void print_breakdown_rows(const std::vector<BreakdownRow>& rows, std::ostream& out) {
  double run = 0;
  for (const BreakdownRow& r : rows) run += r.calc.total;
  out << "  (% of each procedure's cycles; calc from the samples, truth beside it)\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %7s %7s %7s %7s %7s | %7s %7s %7s  %s\n", "cycles", "exec",
                "static", "dynamic", "unexpl", "t.exec", "t.stat", "t.dyn", "procedure");
  out << line;
  for (const BreakdownRow& r : rows) {
    const CycleBreakdown& c = r.calc;
    const double statics = c.slotting + c.dependency + c.functional_unit;
    const std::string truth_exec = r.truth ? share(r.truth->execution, r.truth->total) : "-";
    const std::string truth_static =
        r.truth ? share(r.truth->slotting + r.truth->dependency, r.truth->total) : "-";
    const std::string truth_dynamic = r.truth ? share(r.truth->dynamic_stall, r.truth->total) : "-";
    std::snprintf(line, sizeof line, "  %7s %7s %7s %7s %7s | %7s %7s %7s  %s\n",
                  share(c.total, run).c_str(), share(c.execution, c.total).c_str(),
                  share(statics, c.total).c_str(), share(c.dynamic_stall, c.total).c_str(),
                  share(c.unexplained_stall + c.unexplained_gain, c.total).c_str(),
                  truth_exec.c_str(), truth_static.c_str(), truth_dynamic.c_str(),
                  r.procedure.c_str());
    out << line;
  }
}

}  // namespace dcpi
