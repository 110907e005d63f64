#include "analysis/calc/render.h"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include "analysis/reports/report_output.h"
#include "analysis/symbols/source_files.h"

namespace dcpi {

using namespace calc;

namespace {

std::string hex(uint64_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "%lx", static_cast<unsigned long>(value));
  return buffer;
}

std::string fixed(double value, int digits) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string percent(double part, double whole) {
  return whole > 0 ? fixed(100.0 * part / whole, 1) + "%" : "-";
}

constexpr const char* kBubbleIndent = "          ";

// Half-cycle lines before one instruction: static reasons first, then the
// dynamic stall's culprit letters; long runs are shortened as in Figure 2
// (three lines, the middle one carrying the instruction's cycles).
void print_bubbles(const CalcInstruction& line, std::ostream& out) {
  const int statics = line.static_half_cycles;
  if (statics > 0) {
    if (statics <= 2) {
      for (int k = 0; k < statics; ++k) out << kBubbleIndent << line.static_letters << '\n';
    } else {
      out << kBubbleIndent << line.static_letters << '\n';
      out << kBubbleIndent << line.static_letters << " ... " << fixed(statics / 2.0, 1)
          << "cy static\n";
    }
  }
  if (line.dynamic_cycles <= 0) return;
  const std::string letters = line.unexplained ? "?" : line.dynamic_letters;
  const int dynamic = static_cast<int>(std::lround(2 * line.dynamic_cycles));
  if (dynamic <= 4) {
    for (int k = 0; k < dynamic; ++k) out << kBubbleIndent << letters << '\n';
    return;
  }
  out << kBubbleIndent << letters << '\n';
  out << kBubbleIndent << letters << " ... " << fixed(line.cpi.value_or(0), 1) << "cy\n";
  out << kBubbleIndent << letters << '\n';
}

std::string pad(std::string text, size_t width) {
  if (text.size() < width) text += std::string(width - text.size(), ' ');
  return text;
}
std::string rpad(std::string text, size_t width) {
  if (text.size() < width) text = std::string(width - text.size(), ' ') + text;
  return text;
}

std::string untab(std::string text) {
  for (char& c : text)
    if (c == '\t') c = ' ';
  return text;
}

std::string_view cause_name(DynamicStallCause cause) {
  switch (cause) {
    case DynamicStallCause::kICacheMiss:
      return "I-cache (not ITB)";
    case DynamicStallCause::kItbMiss:
      return "ITB/I-cache miss";
    case DynamicStallCause::kDCacheMiss:
      return "D-cache miss";
    case DynamicStallCause::kDtbMiss:
      return "DTB miss";
    case DynamicStallCause::kWriteBufferOverflow:
      return "Write buffer";
    case DynamicStallCause::kBranchMispredict:
      return "Branch mispredict";
    case DynamicStallCause::kMultiplierBusy:
      return "IMUL busy";
    case DynamicStallCause::kFpDividerBusy:
      return "FDIV busy";
  }
  return "?";
}

constexpr DynamicStallCause kCauseOrder[] = {
    DynamicStallCause::kICacheMiss,          DynamicStallCause::kItbMiss,
    DynamicStallCause::kDCacheMiss,          DynamicStallCause::kDtbMiss,
    DynamicStallCause::kWriteBufferOverflow, DynamicStallCause::kBranchMispredict,
    DynamicStallCause::kMultiplierBusy,      DynamicStallCause::kFpDividerBusy};
constexpr const char* kStaticOrder[] = {"Slotting", "Ra dependency", "Rb dependency",
                                        "Rc dependency", "FU dependency"};

std::string json_number(std::optional<double> value) {
  if (!value) return "null";
  std::ostringstream s;
  s << std::setprecision(12) << *value;
  return s.str();
}
std::string json_address(uint64_t value) { return "\"0x" + hex(value) + "\""; }

}  // namespace

void print_calc_header(const CalcContext& context, const std::string& model, std::ostream& out) {
  out << "image:  " << context.db_image;
  if (context.image != context.db_image) out << " (ELF " << context.image << ")";
  out << "\nmodel:  " << model << "\nepochs: " << context.epochs << "; mean sampling period "
      << fixed(context.period, 1) << " cycles";
  if (!context.period_description.empty()) out << " (" << context.period_description << ")";
  if (context.cpus > 0) out << "; " << context.cpus << (context.cpus == 1 ? " CPU" : " CPUs");
  out << '\n';
  for (const std::string& note : context.period_notes) out << "note:   " << note << '\n';
  if (context.qemu_model && context.cpus > 1)
    out << "note:   " << context.cpus
        << " CPUs: under -icount the cycle counter is virtual time shared by all CPUs; while\n"
           "        several are busy each retires about 1/"
        << context.cpus
        << " instruction per cycle, so CPIs approach that\n"
           "        count and frequency x period overstates executions by up to that factor\n";
}

void print_calc_text(const CalcReport& report, const CalcContext& context, std::ostream& out) {
  print_calc_header(context, report.model, out);
  out << "procedure " << report.procedure << '\n';
  if (report.model_has_dynamic_stalls)
    out << "bubbles: one line per half cycle; static s slotting, a/b/c Ra/Rb/Rc dependency,\n"
           "  f functional unit; dynamic i I-cache, I ITB, d D-cache, D DTB, p branch mispredict,\n"
           "  w write buffer, M IMUL busy, F FDIV busy, ? unexplained\n";
  else
    out << "no bubbles: " << report.no_dynamic_stalls_note << "; one line per cycle\n";
  for (const IndirectJump& jump : report.indirect_jumps) {
    if (jump.kind == IndirectJumpKind::kTailCall) continue;
    if (jump.table) {
      out << "jump table: jmp at " << hex(jump.address) << " reads " << jump.table->entries
          << " entries at " << hex(jump.table->table) << " (+ gp " << hex(jump.table->base)
          << "): " << jump.table->targets.size() << " targets, CFG edges\n";
      continue;
    }
    out << "missing edges: jmp at " << hex(jump.address) << " is a " << describe(jump)
        << (jump.table_load ? " (entry loaded at " + hex(*jump.table_load) + ")" : "")
        << "; every block and edge gets its own frequency class (DCPI 6.1.2)\n";
  }

  SourceFiles sources;  // source lines interleaved where they change, as dcpi list does
  for (size_t b = 0; b < report.blocks.size(); ++b) {
    const CalcBlock& block = report.blocks[b];
    const size_t n = block.instructions.size();
    out << "\n*** Block " << b << " [" << hex(block.start) << ", " << hex(block.end) << "): " << n
        << " instructions, class " << block.frequency_class;
    if (block.frequency) {
      out << ", frequency " << fixed(*block.frequency, 1) << " (" << to_string(block.confidence)
          << ", " << block.method << ") = " << fixed(*block.frequency * context.period, 0)
          << " executions\n";
    } else {
      out << ", frequency unknown\n";
    }
    out << "*** Best-case " << block.best_case_cycles << "/" << n << " = "
        << fixed(n ? double(block.best_case_cycles) / n : 0, 2) << "CPI\n";
    if (block.frequency && *block.frequency > 0) {
      const double actual = block.samples / *block.frequency;
      out << "*** Actual " << fixed(actual, 1) << "/" << n << " = " << fixed(actual / n, 2)
          << "CPI\n";
    } else {
      out << "*** Actual -\n";
    }
    out << pad("Addr", 10) << "  " << pad("Instruction", 30) << rpad("Samples", 8)
        << rpad("Freq", 10) << rpad("CPI", 9) << "  Culprit\n";
    for (const CalcInstruction& line : block.instructions) {
      if (const auto banner = sources.banner(line.source)) out << *banner << '\n';
      print_bubbles(line, out);
      out << pad(hex(line.address), 10) << "  " << pad(untab(line.text), 30)
          << rpad(fixed(line.samples, 0), 8)
          << rpad(block.frequency ? fixed(*block.frequency, 1) : "-", 10)
          << rpad(line.head_cycles == 0 && line.samples == 0 ? ""
                  : line.cpi                                 ? fixed(*line.cpi, 1) + "cy"
                                                             : "-",
                  9)
          << "  ";
      if (line.head_cycles == 0) out << "(dual issue)";
      for (uint64_t culprit : line.culprits) out << hex(culprit) << ' ';
      out << '\n';
    }
  }
  out << '\n';
  print_calc_summary(report, out);
}

void print_calc_summary(const CalcReport& report, std::ostream& out) {
  const CalcSummary& s = report.summary;
  const double total = s.samples;
  out << "*** Best-case " << fixed(s.best_case, 0) << "/" << fixed(s.instructions, 0) << " = "
      << fixed(s.instructions > 0 ? s.best_case / s.instructions : 0, 2) << "CPI\n";
  out << "*** Actual " << fixed(s.samples, 0) << "/" << fixed(s.instructions, 0) << " = "
      << fixed(s.instructions > 0 ? s.samples / s.instructions : 0, 2) << "CPI\n***\n";
  if (report.model_has_dynamic_stalls) {
    for (DynamicStallCause cause : kCauseOrder) {
      const auto found = s.dynamic.find(cause);
      const auto [low, high] = found == s.dynamic.end() ? std::pair{0.0, 0.0} : found->second;
      out << "*** " << pad(std::string(cause_name(cause)), 20) << percent(low, total) << " to "
          << percent(high, total) << '\n';
    }
    out << "***\n*** " << pad("Unexplained stall", 20) << percent(s.unexplained_stall, total)
        << '\n';
    out << "*** " << pad("Unexplained gain", 20) << percent(s.unexplained_gain, total) << '\n';
  } else {
    out << "*** No dynamic stalls: " << report.no_dynamic_stalls_note << '\n';
  }
  out << "*** -----\n*** " << pad("Subtotal dynamic", 20) << percent(s.dynamic_total, total)
      << "\n***\n";
  for (const char* name : kStaticOrder) {
    const auto found = s.static_stalls.find(name);
    out << "*** " << pad(name, 20)
        << percent(found == s.static_stalls.end() ? 0 : found->second, total) << '\n';
  }
  out << "*** -----\n*** " << pad("Subtotal static", 20) << percent(s.static_total, total) << '\n';
  out << "*** -----\n*** " << pad("Total stall", 20)
      << percent(s.dynamic_total + s.static_total, total) << '\n';
  out << "*** " << pad("Execution", 20) << percent(s.execution, total) << '\n';
  out << "*** " << pad("Net sampling error", 20) << percent(s.net_sampling_error, total) << '\n';
  out << "*** -----\n*** " << pad("Total tallied", 20)
      << percent(s.dynamic_total + s.static_total + s.execution + s.net_sampling_error, total)
      << '\n';
  out << "*** (" << fixed(s.samples, 0) << ", " << percent(s.samples, s.image_samples)
      << " of all samples in the image)\n";
}

void print_calc_json(const CalcReport& report, const CalcContext& context, std::ostream& out) {
  const CalcSummary& s = report.summary;
  out << "{\n  \"procedure\": " << json_quote(report.procedure)
      << ",\n  \"image\": " << json_quote(context.image)
      << ",\n  \"db_image\": " << json_quote(context.db_image)
      << ",\n  \"model\": " << json_quote(report.model) << ",\n  \"model_has_dynamic_stalls\": "
      << (report.model_has_dynamic_stalls ? "true" : "false")
      << ",\n  \"note\": " << json_quote(report.no_dynamic_stalls_note)
      << ",\n  \"epochs\": " << json_quote(context.epochs)
      << ",\n  \"period\": " << json_number(context.period)
      << ",\n  \"period_source\": " << json_quote(context.period_source)
      << ",\n  \"period_notes\": [";
  for (size_t k = 0; k < context.period_notes.size(); ++k)
    out << (k ? ", " : "") << json_quote(context.period_notes[k]);
  out << "],\n  \"cpus\": " << context.cpus
      << ",\n  \"missing_edges\": " << (report.missing_edges ? "true" : "false")
      << ",\n  \"indirect_jumps\": [";
  for (size_t k = 0; k < report.indirect_jumps.size(); ++k) {
    const IndirectJump& j = report.indirect_jumps[k];
    out << (k ? ", " : "") << "{\"address\": " << json_address(j.address)
        << ", \"kind\": " << json_quote(to_string(j.kind))
        << ", \"table_load\": " << (j.table_load ? json_address(*j.table_load) : "null");
    if (j.table) {
      out << ", \"table\": {\"address\": " << json_address(j.table->table)
          << ", \"entries\": " << j.table->entries << ", \"gp\": " << json_address(j.table->base)
          << ", \"targets\": [";
      for (size_t t = 0; t < j.table->targets.size(); ++t)
        out << (t ? ", " : "") << json_address(j.table->targets[t]);
      out << "]}";
    } else if (!j.problem.empty()) {
      out << ", \"problem\": " << json_quote(j.problem);
    }
    out << "}";
  }
  out << "],\n  \"summary\": {\"samples\": " << json_number(s.samples)
      << ", \"image_samples\": " << json_number(s.image_samples)
      << ", \"best_case\": " << json_number(s.best_case)
      << ", \"instructions\": " << json_number(s.instructions)
      << ", \"dynamic_total\": " << json_number(s.dynamic_total)
      << ", \"unexplained_stall\": " << json_number(s.unexplained_stall)
      << ", \"unexplained_gain\": " << json_number(s.unexplained_gain)
      << ", \"static_total\": " << json_number(s.static_total)
      << ", \"execution\": " << json_number(s.execution)
      << ", \"net_sampling_error\": " << json_number(s.net_sampling_error) << ", \"dynamic\": {";
  bool first = true;
  for (const auto& [cause, range] : s.dynamic) {
    out << (first ? "" : ", ") << json_quote(cause_name(cause)) << ": [" << json_number(range.first)
        << ", " << json_number(range.second) << "]";
    first = false;
  }
  out << "}, \"static\": {";
  first = true;
  for (const auto& [name, cycles] : s.static_stalls) {
    out << (first ? "" : ", ") << json_quote(name) << ": " << json_number(cycles);
    first = false;
  }
  out << "}},\n  \"classes\": [";
  for (size_t k = 0; k < report.classes.size(); ++k) {
    const CalcClass& c = report.classes[k];
    out << (k ? ",\n    " : "\n    ") << "{\"id\": " << c.id
        << ", \"frequency\": " << json_number(c.frequency) << ", \"executions\": "
        << json_number(c.frequency ? std::optional(*c.frequency * context.period) : std::nullopt)
        << ", \"confidence\": " << json_quote(to_string(c.confidence))
        << ", \"method\": " << json_quote(c.method) << ", \"samples\": " << json_number(c.samples)
        << ", \"blocks\": [";
    for (size_t b = 0; b < c.blocks.size(); ++b) out << (b ? ", " : "") << c.blocks[b];
    out << "]}";
  }
  out << "],\n  \"blocks\": [";
  for (size_t b = 0; b < report.blocks.size(); ++b) {
    const CalcBlock& block = report.blocks[b];
    out << (b ? ",\n    " : "\n    ") << "{\"start\": " << json_address(block.start)
        << ", \"end\": " << json_address(block.end) << ", \"class\": " << block.frequency_class
        << ", \"frequency\": " << json_number(block.frequency)
        << ", \"confidence\": " << json_quote(to_string(block.confidence))
        << ", \"method\": " << json_quote(block.method)
        << ", \"best_case_cycles\": " << block.best_case_cycles
        << ", \"samples\": " << json_number(block.samples) << ", \"instructions\": [";
    for (size_t i = 0; i < block.instructions.size(); ++i) {
      const CalcInstruction& line = block.instructions[i];
      out << (i ? ",\n      " : "\n      ") << "{\"address\": " << json_address(line.address)
          << ", \"text\": " << json_quote(untab(line.text))
          << ", \"samples\": " << json_number(line.samples)
          << ", \"head_cycles\": " << line.head_cycles << ", \"cpi\": " << json_number(line.cpi)
          << ", \"static\": " << json_quote(line.static_letters)
          << ", \"static_half_cycles\": " << line.static_half_cycles
          << ", \"dynamic\": " << json_quote(line.dynamic_letters)
          << ", \"dynamic_cycles\": " << json_number(line.dynamic_cycles) << ", \"culprits\": [";
      for (size_t k = 0; k < line.culprits.size(); ++k)
        out << (k ? ", " : "") << json_address(line.culprits[k]);
      out << "]";
      if (line.source)
        out << ", \"source\": {\"file\": " << json_quote(line.source->file)
            << ", \"line\": " << line.source->line << "}";
      out << "}";
    }
    out << "]}";
  }
  out << "]\n}\n";
}

void print_calc_overview(const std::vector<CalcOverviewRow>& rows, const CalcContext& context,
                         const std::string& model, std::ostream& out) {
  print_calc_header(context, model, out);
  out << '\n'
      << rpad("Samples", 10) << rpad("Best CPI", 10) << rpad("Actual CPI", 12) << rpad("Blocks", 8)
      << "  Procedure\n";
  for (const CalcOverviewRow& row : rows) {
    const bool known = row.instructions > 0;
    out << rpad(fixed(row.samples, 0), 10)
        << rpad(known ? fixed(row.best_case / row.instructions, 2) : "-", 10)
        << rpad(known ? fixed(row.samples / row.instructions, 2) : "-", 12)
        << rpad(std::to_string(row.blocks), 8) << "  " << row.procedure
        << (row.missing_edges ? "  (missing edges)" : "") << '\n';
  }
}

}  // namespace dcpi
