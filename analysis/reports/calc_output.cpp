#include "analysis/reports/calc_output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include "analysis/reports/json_writer.h"
#include "analysis/reports/report_output.h"
#include "symbols/source_files.h"

namespace dcpi {

using namespace calc;

namespace {

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
      out << kBubbleIndent << line.static_letters << " ... " << fixed_text(statics / 2.0, 1)
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
  out << kBubbleIndent << letters << " ... " << fixed_text(line.cpi.value_or(0), 1) << "cy\n";
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

// Figure 4's names (isa/stall_causes.h).
std::string_view cause_name(StallCause cause) { return isa::figure4_name(cause); }

// "| true 113.0cy: dcache 100.0 981c, wbuf 10.0, slot 1.0"
void print_truth(const TruthLine& truth, std::ostream& out) {
  out << "| true " << fixed_text(truth.cpi, 1) << "cy";
  const char* separator = ": ";
  for (const TruthLine::Stall& s : truth.stalls) {
    if (s.cycles < 0.05) continue;
    out << separator << isa::truth_name(s.cause) << ' ' << fixed_text(s.cycles, 1);
    if (s.culprit) out << ' ' << hex_digits(*s.culprit);
    separator = ", ";
  }
}

// "[events rule out: d 981c, i] " (DCPI §6.3: absent where expected).
void print_ruled_out(const CalcInstruction& line, std::ostream& out) {
  if (line.ruled_out.empty()) return;
  out << "[events rule out:";
  const char* separator = " ";
  for (const CalcInstruction::RuledOut& r : line.ruled_out) {
    out << separator << r.letter;
    if (r.culprit) out << ' ' << hex_digits(*r.culprit);
    separator = ", ";
  }
  out << "] ";
}

// Several CPUs under -icount: the cycle counter is one virtual clock that
// every CPU advances, so a thread's sample stands for its CPU's share of a
// period (profiledb/own_cycles.h). Said once, with the share used or why
// there is none.
void print_own_cycles(const CalcContext& context, std::ostream& out) {
  if (context.cpus <= 1) return;
  if (!context.own_share) {
    out << "note:   " << context.cpus
        << " CPUs: under -icount the cycle counter is virtual time shared by all CPUs; while\n"
           "        several run threads each retires about 1/"
        << context.cpus
        << " instruction per cycle, and this\n"
           "        database does not record the CPUs' own cycles (a guest from before them),\n"
           "        so frequency x period overstates executions by up to that factor\n";
    return;
  }
  out << "own:    " << fixed_text(*context.own_share, 3)
      << " of a period is a sample's own cycles on average (threads ran on "
      << fixed_text(1 / *context.own_share, 2) << " CPUs;\n"
      << "        the kernel's accounting: under -icount the CPUs share one clock): frequency\n"
      << "        x period uses " << fixed_text(context.period, 1)
      << " cycles, and each thread's samples are weighed by its\n"
         "        own share over that average (their total unchanged)\n"
         "note:   a thread's share is its average: what it ran while fewer (more) CPUs ran\n"
         "        threads than that is under- (over-)counted\n";
  if (context.lateness > 0)
    out << "note:   a thread's sample stood for " << fixed_text(100 * context.lateness, 1)
        << " % more than a period of the clock on average (an overflow\n"
           "        during a CPU's wait for its round-robin turn is taken when the turn comes, "
           "and\n"
           "        the next period starts then); counted in, by each thread's waiting\n";
}

}  // namespace

void print_calc_header(const CalcContext& context, const std::string& model, std::ostream& out) {
  out << "image:  " << context.db_image;
  if (context.image != context.db_image) out << " (ELF " << context.image << ")";
  out << "\nmachine: " << context.machine
      << (context.machine == "ev5"
              ? " (the profile's: QEMU on the 21164 timing model's cycles)"
              : " (the profile's: QEMU, 1 instruction per cycle under -icount)");
  out << "\nmodel:  " << model;
  if (context.estimator == "flow")
    out << "\nestimate: flow (min-cost flow over the whole CFG; DCPI's where edges are missing)";
  out << "\nepochs: " << context.epochs << "; mean sampling period "
      << fixed_text(context.sampling_period > 0 ? context.sampling_period : context.period, 1)
      << " cycles";
  if (!context.period_description.empty()) out << " (" << context.period_description << ")";
  if (context.cpus > 0) out << "; " << context.cpus << (context.cpus == 1 ? " CPU" : " CPUs");
  out << '\n';
  print_own_cycles(context, out);
  for (const std::string& note : context.period_notes) out << "note:   " << note << '\n';
  if (!context.events.description.empty()) out << "events: " << context.events.description << '\n';
  if (context.hypothetical_stalls)
    out << "note:   HYPOTHETICAL STALLS: this profile comes from QEMU, which runs 1 instruction "
           "per\n"
           "        cycle and never stalls; the stalls below are what a 21164 would have shown\n"
           "        for these samples, not what the machine did (use --model qemu for the real "
           "one)\n";
  if (context.qemu_model && context.machine == "ev5")
    out << "note:   this profile comes from the ev5 machine (21164 time); the qemu model's one\n"
           "        cycle per instruction does not describe it, so every stall shows as sampling\n"
           "        error (the default --model ev5 explains them)\n";
}

void print_calc_text(const CalcReport& report, const CalcContext& context, std::ostream& out) {
  print_calc_header(context, report.model, out);
  out << "procedure " << report.procedure << '\n';
  if (report.model_has_dynamic_stalls)
    out << "bubbles: one line per half cycle; static s slotting, a/b/c Ra/Rb/Rc dependency,\n"
           "  f functional unit; dynamic i I-cache, I ITB, d D-cache, D DTB, p branch mispredict,\n"
           "  w write buffer, M IMUL busy, F FDIV busy, r replay trap, P PALcode before it\n"
           "  (a CALL_PAL: its cycles are sampled here), ? unexplained\n";
  else
    out << "no bubbles: " << report.no_dynamic_stalls_note << "; one line per cycle\n";
  for (const IndirectJump& jump : report.indirect_jumps) {
    if (jump.kind == IndirectJumpKind::kTailCall) continue;
    if (jump.table) {
      out << "jump table: jmp at " << hex_digits(jump.address) << " reads " << jump.table->entries
          << " entries at " << hex_digits(jump.table->table) << " (+ gp "
          << hex_digits(jump.table->base) << "): " << jump.table->targets.size()
          << " targets, CFG edges\n";
      continue;
    }
    out << "missing edges: jmp at " << hex_digits(jump.address) << " is a " << describe(jump)
        << (jump.table_load ? " (entry loaded at " + hex_digits(*jump.table_load) + ")" : "")
        << "; every block and edge gets its own frequency class (DCPI 6.1.2)\n";
  }

  SourceFiles sources;  // source lines interleaved where they change, as dcpi list does
  for (size_t b = 0; b < report.blocks.size(); ++b) {
    const CalcBlock& block = report.blocks[b];
    const size_t n = block.instructions.size();
    out << "\n*** Block " << b << " [" << hex_digits(block.start) << ", " << hex_digits(block.end)
        << "): " << n << " instructions, class " << block.frequency_class;
    if (block.padding) {
      out << ", alignment padding: no edge reaches it, never executes\n";
    } else if (block.frequency) {
      out << ", frequency " << fixed_text(*block.frequency, 1) << " ("
          << to_string(block.confidence) << ", " << block.method
          << ") = " << fixed_text(*block.frequency * context.period, 0) << " executions\n";
    } else {
      out << ", frequency unknown\n";
    }
    out << "*** Best-case " << block.best_case_cycles << "/" << n << " = "
        << fixed_text(n ? double(block.best_case_cycles) / n : 0, 2) << "CPI\n";
    if (block.frequency && *block.frequency > 0) {
      const double actual = block.samples / *block.frequency;
      out << "*** Actual " << fixed_text(actual, 1) << "/" << n << " = "
          << fixed_text(actual / n, 2) << "CPI\n";
    } else {
      out << "*** Actual -\n";
    }
    if (block.true_cycles)
      out << "*** True " << fixed_text(*block.true_cycles, 1) << "/" << n << " = "
          << fixed_text(*block.true_cycles / n, 2) << "CPI (the truth file)\n";
    out << pad("Addr", 10) << "  " << pad("Instruction", 30) << rpad("Samples", 8);
    // A column per event, a space wider than its name (pcmispredict: 13).
    std::vector<size_t> widths;
    for (const std::string& event : report.events)
      widths.push_back(std::max<size_t>(9, event.size() + 1));
    for (size_t e = 0; e < report.events.size(); ++e) out << rpad(report.events[e], widths[e]);
    out << rpad("Freq", 10) << rpad("CPI", 9) << "  Culprit\n";
    for (const CalcInstruction& line : block.instructions) {
      if (const auto banner = sources.banner(line.source)) out << *banner << '\n';
      print_bubbles(line, out);
      out << pad(hex_digits(line.address), 10) << "  " << pad(untab(line.text()), 30)
          << rpad(fixed_text(line.samples, 0), 8);
      for (size_t e = 0; e < line.event_samples.size(); ++e)
        out << rpad(fixed_text(line.event_samples[e], 0), e < widths.size() ? widths[e] : 9);
      out << rpad(block.frequency ? fixed_text(*block.frequency, 1) : "-", 10)
          << rpad(line.head_cycles == 0 && line.samples == 0 ? ""
                  : line.cpi                                 ? fixed_text(*line.cpi, 1) + "cy"
                                                             : "-",
                  9)
          << "  ";
      if (line.head_cycles == 0) out << "(dual issue) ";
      for (uint64_t culprit : line.culprits) out << hex_digits(culprit) << ' ';
      print_ruled_out(line, out);
      if (line.truth) print_truth(*line.truth, out);
      out << '\n';
    }
  }
  out << '\n';
  print_calc_summary(report, out);
}

void print_calc_summary(const CalcReport& report, std::ostream& out) {
  const CalcSummary& s = report.summary;
  const double total = s.samples;
  out << "*** Best-case " << fixed_text(s.best_case, 0) << "/" << fixed_text(s.instructions, 0)
      << " = " << fixed_text(s.instructions > 0 ? s.best_case / s.instructions : 0, 2) << "CPI\n";
  out << "*** Actual " << fixed_text(s.samples, 0) << "/" << fixed_text(s.instructions, 0) << " = "
      << fixed_text(s.instructions > 0 ? s.samples / s.instructions : 0, 2) << "CPI\n***\n";
  if (report.model_has_dynamic_stalls) {
    for (StallCause cause : isa::kFigure4Causes) {
      const auto found = s.dynamic.find(cause);
      const auto [low, high] = found == s.dynamic.end() ? std::pair{0.0, 0.0} : found->second;
      out << "*** " << pad(std::string(cause_name(cause)), 20) << share_text(low, total) << " to "
          << share_text(high, total) << '\n';
    }
    out << "***\n*** " << pad("Unexplained stall", 20) << share_text(s.unexplained_stall, total)
        << '\n';
    out << "*** " << pad("Unexplained gain", 20) << share_text(s.unexplained_gain, total) << '\n';
  } else {
    out << "*** No dynamic stalls: " << report.no_dynamic_stalls_note << '\n';
  }
  out << "*** -----\n*** " << pad("Subtotal dynamic", 20) << share_text(s.dynamic_total, total)
      << "\n***\n";
  for (const isa::StaticRow& row : isa::kStaticRows) {
    const char* name = row.figure4_name;
    const auto found = s.static_stalls.find(name);
    out << "*** " << pad(name, 20)
        << share_text(found == s.static_stalls.end() ? 0 : found->second, total) << '\n';
  }
  out << "*** -----\n*** " << pad("Subtotal static", 20) << share_text(s.static_total, total)
      << '\n';
  out << "*** -----\n*** " << pad("Total stall", 20)
      << share_text(s.dynamic_total + s.static_total, total) << '\n';
  out << "*** " << pad("Execution", 20) << share_text(s.execution, total) << '\n';
  out << "*** " << pad("Net sampling error", 20) << share_text(s.net_sampling_error, total) << '\n';
  out << "*** -----\n*** " << pad("Total tallied", 20)
      << share_text(s.dynamic_total + s.static_total + s.execution + s.net_sampling_error, total)
      << '\n';
  out << "*** (" << fixed_text(s.samples, 0) << ", " << share_text(s.samples, s.image_samples)
      << " of all samples in the image)\n";
}

namespace {

using Break = JsonWriter::Break;

void write_indirect_jump(JsonWriter& json, const IndirectJump& j) {
  json.begin_object().address_field("address", j.address).field("kind", to_string(j.kind));
  json.key("table_load");
  j.table_load ? json.address(*j.table_load) : json.null();
  if (j.table) {
    json.key("table").begin_object().address_field("address", j.table->table);
    json.field("entries", j.table->entries).address_field("gp", j.table->base);
    json.key("targets").begin_array();
    for (uint64_t target : j.table->targets) json.address(target);
    json.end_array().end_object();
  } else if (!j.problem.empty()) {
    json.field("problem", j.problem);
  }
  json.end_object();
}

// The event samples calc weighed (issue 26): null without any.
void write_event_evidence(JsonWriter& json, const EventEvidenceSummary& e) {
  json.key("events");
  if (e.used.empty()) {
    json.null();
    return;
  }
  json.begin_object().field("used", !e.ignored).field("sharing", uint64_t{e.sharing});
  json.key("events").begin_array();
  for (const EventEvidenceUse& u : e.used)
    json.begin_object()
        .field("event", u.event)
        .field("cause", std::string(isa::truth_name(u.cause)))
        .real_field("samples", u.samples)
        .real_field("events_per_sample", u.events_per_sample)
        .end_object();
  json.end_array().end_object();
}

void write_summary(JsonWriter& json, const CalcSummary& s) {
  json.key("summary").begin_object();
  json.real_field("samples", s.samples).real_field("image_samples", s.image_samples);
  json.real_field("best_case", s.best_case).real_field("instructions", s.instructions);
  json.real_field("dynamic_total", s.dynamic_total);
  json.real_field("unexplained_stall", s.unexplained_stall);
  json.real_field("unexplained_gain", s.unexplained_gain);
  json.real_field("static_total", s.static_total).real_field("execution", s.execution);
  json.real_field("net_sampling_error", s.net_sampling_error);
  json.key("dynamic").begin_object();
  for (const auto& [cause, range] : s.dynamic)
    json.key(cause_name(cause)).begin_array().real(range.first).real(range.second).end_array();
  json.end_object().key("static").begin_object();
  for (const auto& [name, cycles] : s.static_stalls) json.real_field(name, cycles);
  json.end_object().end_object();
}

void write_class(JsonWriter& json, const CalcClass& c, double period) {
  json.begin_object().field("id", uint64_t{c.id}).real_field("frequency", c.frequency);
  json.real_field("executions", c.frequency ? std::optional(*c.frequency * period) : std::nullopt);
  json.field("confidence", to_string(c.confidence)).field("method", c.method);
  json.real_field("samples", c.samples).key("blocks").begin_array();
  for (size_t block : c.blocks) json.value(uint64_t{block});
  json.end_array().end_object();
}

void write_instruction(JsonWriter& json, const CalcInstruction& line,
                       const std::vector<std::string>& events) {
  json.begin_object().address_field("address", line.address).field("text", untab(line.text()));
  json.real_field("samples", line.samples).field("head_cycles", line.head_cycles);
  json.real_field("cpi", line.cpi).field("static", line.static_letters);
  json.field("static_half_cycles", line.static_half_cycles).field("dynamic", line.dynamic_letters);
  json.real_field("dynamic_cycles", line.dynamic_cycles).key("culprits").begin_array();
  for (uint64_t culprit : line.culprits) json.address(culprit);
  json.end_array();
  if (!events.empty()) {
    json.key("events").begin_object();
    for (size_t e = 0; e < events.size(); ++e) json.real_field(events[e], line.event_samples[e]);
    json.end_object().key("ruled_out").begin_array();
    for (const CalcInstruction::RuledOut& r : line.ruled_out) {
      json.begin_object().field("cause", std::string(1, r.letter)).key("culprit");
      r.culprit ? json.address(*r.culprit) : json.null();
      json.real_field("expected_samples", r.expected_samples).end_object();
    }
    json.end_array();
  }
  if (line.source) {
    json.key("source").begin_object().field("file", line.source->file);
    json.field("line", line.source->line).end_object();
  }
  if (line.truth) {
    json.key("truth").begin_object().field("executions", line.truth->executions);
    json.real_field("cpi", line.truth->cpi).key("stalls").begin_array();
    for (const TruthLine::Stall& s : line.truth->stalls) {
      json.begin_object()
          .field("cause", std::string_view(isa::truth_name(s.cause)))
          .real_field("cycles", s.cycles);
      json.key("culprit");
      s.culprit ? json.address(*s.culprit) : json.null();
      json.end_object();
    }
    json.end_array().end_object();
  }
  json.end_object();
}

void write_block(JsonWriter& json, const CalcBlock& block, const std::vector<std::string>& events) {
  json.begin_object().address_field("start", block.start).address_field("end", block.end);
  json.field("class", uint64_t{block.frequency_class}).real_field("frequency", block.frequency);
  json.field("padding", block.padding);
  json.field("confidence", to_string(block.confidence)).field("method", block.method);
  json.field("best_case_cycles", block.best_case_cycles).real_field("samples", block.samples);
  if (block.true_cycles) json.real_field("true_cycles", block.true_cycles);
  json.key("instructions").begin_array(Break::kLines);
  for (const CalcInstruction& line : block.instructions) write_instruction(json, line, events);
  json.end_array().end_object();
}

}  // namespace

// Top-level keys one per line (tests look for "period": ...,\n  "period_source").
void print_calc_json(const CalcReport& report, const CalcContext& context, std::ostream& out) {
  JsonWriter json(out, JsonWriter::Style::kSpaced);
  json.begin_object(Break::kLines).field("procedure", report.procedure);
  json.field("image", context.image).field("db_image", context.db_image);
  json.field("model", report.model)
      .field("model_has_dynamic_stalls", report.model_has_dynamic_stalls);
  json.field("stalls_hypothetical", context.hypothetical_stalls);
  json.field("machine", context.machine).field("estimate", context.estimator);
  json.field("note", report.no_dynamic_stalls_note).field("epochs", context.epochs);
  json.real_field("period", context.period).field("period_source", context.period_source);
  json.key("period_notes").begin_array();
  for (const std::string& note : context.period_notes) json.value(note);
  json.end_array().field("cpus", uint64_t{context.cpus});
  // Several CPUs (docs/calc.md): the sampling period itself and the own
  // share that scaled it into `period`.
  json.real_field("sampling_period", context.sampling_period);
  if (context.own_share) json.real_field("own_share", *context.own_share);
  if (context.lateness > 0) json.real_field("late_samples", context.lateness);
  write_event_evidence(json, context.events);
  json.field("missing_edges", report.missing_edges).key("indirect_jumps").begin_array();
  for (const IndirectJump& jump : report.indirect_jumps) write_indirect_jump(json, jump);
  json.end_array();
  write_summary(json, report.summary);
  json.key("classes").begin_array(Break::kLines);
  for (const CalcClass& c : report.classes) write_class(json, c, context.period);
  json.end_array().key("blocks").begin_array(Break::kLines);
  for (const CalcBlock& block : report.blocks) write_block(json, block, report.events);
  json.end_array().end_object();
}

void print_calc_overview(const std::vector<CalcOverviewRow>& rows, const CalcContext& context,
                         const std::string& model, size_t analysed, std::ostream& out) {
  print_calc_header(context, model, out);
  out << '\n'
      << rpad("Samples", 10) << rpad("Best CPI", 10) << rpad("Actual CPI", 12) << rpad("Blocks", 8)
      << "  Procedure\n";
  for (const CalcOverviewRow& row : rows) {
    const bool known = row.instructions > 0;
    out << rpad(fixed_text(row.samples, 0), 10)
        << rpad(known ? fixed_text(row.best_case / row.instructions, 2) : "-", 10)
        << rpad(known ? fixed_text(row.samples / row.instructions, 2) : "-", 12)
        << rpad(std::to_string(row.blocks), 8) << "  " << row.procedure
        << (row.missing_edges ? "  (missing edges)" : "") << '\n';
  }
  out << "(" << analysed << " procedures analysed, " << rows.size() << " with samples)\n";
}

void print_calc_overview_json(const std::vector<CalcOverviewRow>& rows, const CalcContext& context,
                              size_t analysed, std::ostream& out) {
  JsonWriter json(out, JsonWriter::Style::kSpaced);
  json.begin_object().field("image", context.image).field("machine", context.machine);
  json.field("procedures_analysed", uint64_t{analysed});
  json.key("procedures").begin_array(JsonWriter::Break::kLines);
  for (const CalcOverviewRow& row : rows) {
    json.begin_object().field("procedure", row.procedure).key("samples").real(row.samples, 6);
    json.key("best_case").real(row.best_case, 6).key("instructions").real(row.instructions, 6);
    json.field("blocks", uint64_t{row.blocks}).field("missing_edges", row.missing_edges);
    json.end_object();
  }
  json.end_array().end_object();
}

}  // namespace dcpi
