#include "analysis/reports/stat_output.h"

#include <fmt/format.h>

#include "analysis/reports/json_writer.h"

namespace dcpi {
namespace {

// 1234567 -> "1,234,567" (perf stat's grouping).
std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string title(const StatRow& row) {
  if (row.pid == 0) return fmt::format("the whole machine ({} processes)", row.processes);
  std::string text = fmt::format("'{}' (pid {}", row.program.empty() ? "?" : row.program, row.pid);
  if (row.with_children && row.processes > 1)
    text += fmt::format(", with {} waited-for descendants", row.processes - 1);
  return text + ")";
}

// The instructions a row's rates are per: counted on ev5 (counter 0's
// issues, user mode), the cycles themselves on qemu (one per cycle under
// icount), none when not counted.
std::optional<uint64_t> instructions_of(const StatReport& report, const StatRow& row) {
  if (report.machine == "qemu") return row.cycles;
  return row.instructions;
}

// Under icount the qemu machine runs one instruction per cycle: its
// instructions are its cycles, and IPC is 1 by construction.
void print_cycles(const StatReport& report, const StatRow& row, std::ostream& out) {
  out << fmt::format("{:>20}      {:<14}# the process's time, kernel mode included\n",
                     grouped(row.cycles), "cycles");
  if (report.machine == "qemu") {
    out << fmt::format("{:>20}      {:<14}# = cycles: one per cycle under icount (qemu machine)\n",
                       grouped(row.cycles), "instructions");
  } else if (row.instructions) {
    const double n = double(*row.instructions), c = double(row.cycles);
    out << fmt::format(
        "{:>20}      {:<14}# {:6.3f} per cycle, {:.3f} cycles per instruction "
        "(user instructions over all cycles)\n",
        grouped(*row.instructions), "instructions", c ? n / c : 0, n ? c / n : 0);
  }
}

// D-cache misses per 1000 loads when the row counted both (counters 1 and
// 2 at once, issue 26): the miss rate of the loads themselves, which per
// 1000 instructions hides. From the projected counts when multiplexed.
std::optional<double> per_1000_loads(const StatRow& row, const StatEvent& e) {
  if (e.name != "dmiss") return std::nullopt;
  for (const StatEvent& loads : row.events)
    if (loads.name == "loads" && loads.projected != 0)
      return 1000.0 * double(e.projected) / double(loads.projected);
  return std::nullopt;
}

void print_event(const StatReport& report, const StatRow& row, const StatEvent& e,
                 std::ostream& out) {
  const std::optional<uint64_t> instructions = instructions_of(report, row);
  const uint64_t per = instructions.value_or(row.cycles);
  const double per_k = per ? 1000.0 * double(e.projected) / double(per) : 0;
  out << fmt::format("{:>20}      {:<14}# {:8.3f} per 1000 {}", grouped(e.count), e.name, per_k,
                     instructions ? "instructions" : "cycles");
  if (e.share < 1.0)
    out << fmt::format("  ({:5.1f}% of the time; projected {})", 100.0 * e.share,
                       grouped(e.projected));
  if (const auto rate = per_1000_loads(row, e))
    out << fmt::format(", {:.3f} per 1000 loads", *rate);
  if (e.estimated_cycles)
    out << fmt::format("  est. {} cycles ({:.1f}%) at {} each", grouped(*e.estimated_cycles),
                       row.cycles ? 100.0 * double(*e.estimated_cycles) / double(row.cycles) : 0,
                       *e.typical_cost);
  if (e.truth_stall_cycles)
    out << fmt::format("; truth {} stall cycles ({:.1f}%)", grouped(*e.truth_stall_cycles),
                       row.cycles ? 100.0 * double(*e.truth_stall_cycles) / double(row.cycles) : 0);
  out << '\n';
}

}  // namespace

void print_stat_text(const StatReport& report, std::ostream& out) {
  if (report.rows.empty()) {
    out << "dcpi stat: no process was counted\n";
    return;
  }
  bool events = false;
  for (const StatRow& row : report.rows) {
    events |= !row.events.empty();
    out << "\n Performance counter stats for " << title(row) << ", machine " << report.machine
        << ", " << report.cpus << (report.cpus == 1 ? " CPU" : " CPUs") << ":\n\n";
    print_cycles(report, row, out);
    for (const StatEvent& e : row.events) print_event(report, row, e, out);
  }
  if (events)
    out << "\n events and instructions count user mode only (the 21164's kill bits for kernel"
           " and PAL mode);\n est. = perfex's count x typical cost, which ignores overlap;"
           " truth = the model's stall cycles of that cause (--truth)\n";
}

void print_stat_json(const StatReport& report, std::ostream& out) {
  JsonWriter json(out, JsonWriter::Style::kSpaced);
  json.begin_object().field("machine", report.machine).field("cpus", report.cpus);
  json.key("processes").begin_array(JsonWriter::Break::kLines);
  for (const StatRow& row : report.rows) {
    json.begin_object().field("pid", row.pid).field("program", row.program);
    json.field("with_children", row.with_children).field("processes", row.processes);
    json.field("cycles", row.cycles);
    const std::optional<uint64_t> instructions = instructions_of(report, row);
    json.key("instructions");
    instructions ? json.value(*instructions) : json.null();
    json.key("ipc");
    instructions&& row.cycles ? json.value(double(*instructions) / double(row.cycles), 6)
                              : json.null();
    json.key("cpi");
    instructions&&* instructions ? json.value(double(row.cycles) / double(*instructions), 6)
                                 : json.null();
    json.key("events").begin_array();
    for (const StatEvent& e : row.events) {
      json.begin_object().field("name", e.name).field("count", e.count);
      json.field("counted_cycles", e.counted_cycles).field("share", e.share, 6);
      json.field("projected", e.projected);
      json.key("typical_cost");
      e.typical_cost ? json.value(*e.typical_cost) : json.null();
      json.key("estimated_cycles");
      e.estimated_cycles ? json.value(*e.estimated_cycles) : json.null();
      json.key("per_1000_instructions");
      instructions&&* instructions
          ? json.value(1000.0 * double(e.projected) / double(*instructions), 6)
          : json.null();
      json.key("per_1000_loads");  // dmiss with loads counted, else null
      const auto rate = per_1000_loads(row, e);
      rate ? json.value(*rate, 6) : json.null();
      json.key("truth_stall_cycles");
      e.truth_stall_cycles ? json.value(*e.truth_stall_cycles) : json.null();
      json.end_object();
    }
    json.end_array().end_object();
  }
  json.end_array().end_object();
  out << '\n';
}

}  // namespace dcpi
