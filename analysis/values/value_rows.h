// The rows `dcpi values` shows (seed 001 §2, Figure 1): the hotlists of the
// selected kinds, one per (image, PC), narrowed to a procedure and to the
// registers the instruction really uses, or, with --invariant, the
// semi-invariant ones (§2: values that stay the same most of the time in
// code executed often). Rendered by analysis/reports/values_output.h.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/values/value_hotlists.h"
#include "symbols/image_resolver.h"
#include "symbols/instruction_printer.h"

namespace dcpi {

struct ValueRow {
  const MergedKind* kind;
  const values::PcHotlist* list;
  std::vector<values::HotValue> hot;  // by decreasing count
};

// Names of the code at a value's PC, from the image's ELF ("" without one).
struct ValueSymbols {
  ImageResolver resolver;
  std::map<std::string, std::unique_ptr<InstructionPrinter>> printers;

  const ElfImage* elf(const ImageIdentity& image) { return resolver.resolve(image).elf.get(); }
  std::string procedure(const ImageIdentity& image, uint64_t address) {
    const ElfImage* e = elf(image);
    if (!e) return "";
    const auto p = e->procedure_at(address);
    return p ? p->name : "";
  }
  std::string instruction(const ImageIdentity& image, uint64_t address) {
    const ElfImage* e = elf(image);
    if (!e) return "";
    const auto word = e->instruction_at(address);
    if (!word) return "";
    auto& printer = printers[image.path + image.build_id];
    if (!printer) printer = make_instruction_printer(image.path, &e->symbols());
    return printer->format(*word, address);
  }
};

struct ValueSelection {
  std::optional<std::string> procedure;  // --procedure: only its PCs
  bool invariant = false;                // --invariant: the semi-invariant finder
  double min_samples = 50;               // --invariant: at least this many values seen
  double threshold = 0.8;                // --invariant: top value's share at least
  size_t limit = 50;                     // --invariant: at most this many rows
};

// Rows by (image path, address); with `invariant`, by values seen, most
// first. Throws ProcedureMatchError if no image has `procedure`.
std::vector<ValueRow> select_value_rows(const std::vector<MergedKind>& merged,
                                        ValueSymbols& symbols, const ValueSelection& selection);

// One standard deviation of the top value's share, from the binomial with
// the retained sample (about p * vtot values; seed 001 §2.2).
double share_sigma(double fraction, const values::PcHotlist& list);

}  // namespace dcpi
