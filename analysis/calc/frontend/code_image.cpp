#include "analysis/calc/frontend/code_image.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "symbols/cfi_unwinder.h"
#include "symbols/demangle.h"
#include "symbols/procedure_match.h"

namespace dcpi {

namespace {

bool looks_like_label(const std::string& name) {
  return !name.empty() && !name.starts_with(".L") && !name.starts_with("$") &&
         name.find("..") == std::string::npos;
}

// Code no symbol names (a stripped library's static functions: libc's
// msort_with_tmp): each .eh_frame FDE inside a code section and clear of
// every symbol's procedure is a procedure of its own, named 0x<start> as
// ElfImage::procedure_at names it (ProcedureSource::kFrameInfo).
template <typename SectionOf>
void add_frame_procedures(std::vector<ProcedureRange>& procedures, const std::string& path,
                          const SectionOf& section_of) {
  std::vector<ProcedureRange> added;
  for (const auto& [begin, end] : cfi_function_ranges(path)) {
    if (end <= begin || (begin & 3) || !section_of(begin) || !section_of(end - 4)) continue;
    const auto after = std::upper_bound(
        procedures.begin(), procedures.end(), begin,
        [](uint64_t address, const ProcedureRange& p) { return address < p.start; });
    const bool overlaps_before = after != procedures.begin() && std::prev(after)->end > begin;
    const bool overlaps_after = after != procedures.end() && after->start < end;
    if (overlaps_before || overlaps_after) continue;
    char name[32];
    std::snprintf(name, sizeof name, "0x%llx", static_cast<unsigned long long>(begin));
    added.push_back({name, begin, end - (end - begin) % 4});
  }
  procedures.insert(procedures.end(), added.begin(), added.end());
  std::sort(procedures.begin(), procedures.end(),
            [](const ProcedureRange& a, const ProcedureRange& b) { return a.start < b.start; });
}

// `section`'s bytes as the dynamic loader leaves them for a library loaded
// at address 0 (the image's own addresses): each R_ALPHA_RELATIVE of
// .rela.dyn inside it stores its addend (Elf64_Rela: offset, info, addend).
std::vector<uint8_t> relocated_by_load_base(const ElfSection& section,
                                            const std::vector<ElfSection>& sections) {
  constexpr uint64_t kRelative = 27;  // R_ALPHA_RELATIVE
  std::vector<uint8_t> bytes = section.bytes;
  for (const ElfSection& rela : sections) {
    if (rela.name != ".rela.dyn") continue;
    for (size_t at = 0; at + 24 <= rela.bytes.size(); at += 24) {
      uint64_t offset, info, addend;
      std::memcpy(&offset, rela.bytes.data() + at, 8);
      std::memcpy(&info, rela.bytes.data() + at + 8, 8);
      std::memcpy(&addend, rela.bytes.data() + at + 16, 8);
      if ((info & 0xffffffff) != kRelative || offset < section.address ||
          offset + 8 > section.address + bytes.size())
        continue;
      std::memcpy(bytes.data() + (offset - section.address), &addend, 8);
    }
  }
  return bytes;
}

}  // namespace

CodeImage CodeImage::open(const std::string& path, std::optional<isa::DecodeMode> mode) {
  CodeImage image;
  image.elf_ = std::make_shared<const ElfImage>(ElfImage::open(path, {.line_tables = false}));
  image.mode_ = mode.value_or(decode_mode_for_image(path));
  for (CodeSection& code : image.elf_->code_sections()) {
    image.code_bytes_ += 4 * code.words.size();
    image.sections_.push_back({.address = code.address, .words = std::move(code.words)});
  }
  for (const ElfSection& loaded : image.elf_->sections()) {
    // Switch tables live in .rodata; the GOT of these static images is
    // filled by the linker and never rewritten (no dynamic loader).
    if (!loaded.writable || loaded.name == ".got")
      image.constant_data_.add(loaded.address, loaded.bytes);
    // Tables of label addresses (computed gotos) in a shared library: the
    // loader relocates them once, then RELRO makes them read-only.
    if (loaded.name == ".data.rel.ro")
      image.constant_data_.add(loaded.address,
                               relocated_by_load_base(loaded, image.elf_->sections()));
  }
  const ElfSymbols& symbols = image.elf_->symbols();
  if (!symbols.has_symbol_table()) throw ElfError(path + " has no symbol table");

  auto section_of = [&](uint64_t address) -> const Section* {
    for (const Section& s : image.sections_)
      if (s.address <= address && address < s.address + 4 * s.words.size()) return &s;
    return nullptr;
  };
  std::vector<ElfSymbol> starts;
  for (const ElfSymbol& f : symbols.functions())
    if (section_of(f.address)) starts.push_back(f);
  if (starts.empty()) {
    for (const ElfSymbol& s : symbols.symbols())
      if (looks_like_label(s.name) && section_of(s.address)) starts.push_back(s);
  }
  std::stable_sort(starts.begin(), starts.end(),
                   [](const ElfSymbol& a, const ElfSymbol& b) { return a.address < b.address; });
  for (size_t i = 0; i < starts.size(); ++i) {
    const ElfSymbol& s = starts[i];
    if (i > 0 && starts[i - 1].address == s.address) continue;  // aliases: keep the first
    const Section* section = section_of(s.address);
    const uint64_t section_end = section->address + 4 * section->words.size();
    uint64_t end = section_end;
    for (size_t j = i + 1; j < starts.size(); ++j)
      if (starts[j].address > s.address) {
        end = std::min(end, starts[j].address);
        break;
      }
    if (s.size > 0) end = std::min(section_end, s.address + s.size);
    end = s.address + (end - s.address) / 4 * 4;
    if (end > s.address) image.procedures_.push_back({s.name, s.address, end});
  }
  if (symbols.dynamic_symbols_only()) add_frame_procedures(image.procedures_, path, section_of);
  image.summarize_calls();
  return image;
}

std::vector<calc::InstructionRecord> CodeImage::decode(const ProcedureRange& procedure) const {
  for (const Section& s : sections_) {
    if (procedure.start < s.address || procedure.end > s.address + 4 * s.words.size()) continue;
    const size_t first = (procedure.start - s.address) / 4;
    const size_t count = (procedure.end - procedure.start) / 4;
    return calc::decode_records(std::span<const uint32_t>(s.words).subspan(first, count),
                                procedure.start, mode_);
  }
  return {};
}

void CodeImage::summarize_calls() {
  decoded_.clear();
  decoded_.reserve(procedures_.size());
  completed_ = std::make_unique<std::once_flag[]>(procedures_.size());
  for (const ProcedureRange& p : procedures_) {
    Decoded& d = decoded_.emplace_back(Decoded{.records = decode(p), .indirect_jumps = {}});
    d.indirect_jumps = calc::resolve_indirect_jumps(d.records);  // tail calls leave the procedure
  }
  std::vector<calc::ProcedureCalls> procedures;
  for (size_t i = 0; i < procedures_.size(); ++i)
    procedures.push_back({procedures_[i].name, procedures_[i].start, decoded_[i].records});
  calls_ = std::make_shared<const calc::CallClobbers>(procedures);
  footprints_ = std::make_shared<const calc::CallFootprints>(procedures);
}

void CodeImage::describe_calls(calc::CulpritOptions& options) const {
  options.call_footprint = [footprints = footprints_](uint64_t target, uint64_t max_bytes) {
    return footprints->of(target, max_bytes);
  };
  options.call_clobbers = [calls = calls_](const calc::InstructionRecord& call) {
    return calls->of_call(call, call.branch_target);
  };
}

const ProcedureRange* CodeImage::find(std::string_view name) const {
  for (const ProcedureRange& p : procedures_)
    if (p.name == name) return &p;
  // GCC's clones keep the source name before a dot: copy_loop.constprop.0.
  const ProcedureRange* clone = nullptr;
  for (const ProcedureRange& p : procedures_) {
    if (p.name.size() > name.size() && p.name.starts_with(name) && p.name[name.size()] == '.') {
      if (clone) return nullptr;  // ambiguous: the caller names it exactly
      clone = &p;
    }
  }
  return clone;
}

const ProcedureRange* CodeImage::containing(uint64_t address) const {
  auto after = std::upper_bound(procedures_.begin(), procedures_.end(), address,
                                [](uint64_t a, const ProcedureRange& p) { return a < p.start; });
  if (after == procedures_.begin()) return nullptr;
  const ProcedureRange& p = *std::prev(after);
  return address < p.end ? &p : nullptr;
}

void CodeImage::complete(ProcedureCode& code) const {
  if (const auto entry = calc::local_entry_point(code.records))
    code.extra_entries.push_back(*entry);
  if (!code.indirect_jumps.empty())
    calc::resolve_jump_tables(code.records, code.extra_entries, constant_data_, *calls_,
                              code.indirect_jumps);
}

const ElfImage& CodeImage::elf() const {
  std::call_once(with_lines_->read, [&] {
    with_lines_->elf = std::make_shared<const ElfImage>(ElfImage::open(path()));
  });
  return *with_lines_->elf;
}

ProcedureCode CodeImage::code(const ProcedureRange& procedure) const {
  ProcedureCode result{.range = procedure};
  const ProcedureRange* known = containing(procedure.start);
  if (known && known->start == procedure.start && known->end == procedure.end &&
      decoded_.size() == procedures_.size()) {
    const size_t index = static_cast<size_t>(known - procedures_.data());
    Decoded& d = decoded_[index];
    std::call_once(completed_[index], [&] {
      ProcedureCode first{.records = std::move(d.records),
                          .indirect_jumps = std::move(d.indirect_jumps)};
      complete(first);
      d = Decoded{.records = std::move(first.records),
                  .indirect_jumps = std::move(first.indirect_jumps),
                  .extra_entries = std::move(first.extra_entries)};
    });
    result.records = d.records;
    result.indirect_jumps = d.indirect_jumps;
    result.extra_entries = d.extra_entries;
  } else {  // a range of the caller's own
    result.records = decode(procedure);
    result.indirect_jumps = calc::resolve_indirect_jumps(result.records);
    complete(result);
  }
  return result;
}

const ProcedureRange& select_code_procedure(const CodeImage& code, const std::string& query,
                                            const calc::SamplesByAddress* samples) {
  auto address = procedure_address(query);
  if (!address) address = image_procedure_address(query, code.path());  // as prof names it
  if (address) {
    if (const ProcedureRange* procedure = code.containing(*address)) return *procedure;
    throw ProcedureMatchError("no procedure contains " + query + " in " + code.path());
  }
  std::vector<std::string> names;
  for (const ProcedureRange& procedure : code.procedures()) names.push_back(procedure.name);
  const std::vector<size_t> matches = match_procedures(names, query);
  if (matches.size() == 1) return code.procedures()[matches.front()];
  SampledProcedures sampled;  // ranked first among the candidates
  if (samples)
    for (const auto& [address, count] : *samples)
      if (const ProcedureRange* procedure = code.containing(address); procedure && count > 0)
        sampled.insert(demangle(procedure->name));
  throw ProcedureMatchError(
      procedure_match_message(names, query, matches, code.path(), samples ? &sampled : nullptr));
}

}  // namespace dcpi
