// The CFI reader and interpreter (DWARF 5 §6.4.1-6.4.2; the .eh_frame
// encoding of the LSB, "Exception Frames"). elfutils' dwarf_cfi_addrframe
// cannot be used on Alpha: its backend has no ABI CFI hook, so every lookup
// fails ("unknown error"; elfutils 0.188). The rows here follow the Alpha
// ABI's defaults instead: a register the CFI does not mention keeps its
// value (callee-saved r9-r15 and ra at entry; a caller-saved one is not
// needed to find return addresses), the CFA starts as sp.
#include "symbols/cfi_unwinder.h"

#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <span>
#include <vector>

namespace dcpi {
namespace {

constexpr int kRegisters = 65;  // 0-63 and a return-address column of 64

struct Rule {
  enum Kind : uint8_t { kSame, kUndefined, kOffset, kValOffset, kRegister } kind = kSame;
  int64_t n = 0;  // the offset from the CFA, or the register
};

struct Row {
  int cfa_register = kAlphaDwarfSp;
  int64_t cfa_offset = 0;
  bool cfa_expression = false;  // DW_CFA_def_cfa_expression: not evaluated
  bool bad = false;             // an instruction this interpreter does not know
  Rule rules[kRegisters];
};

struct Cie {
  uint64_t code_align = 1;
  int64_t data_align = 1;
  uint32_t ra_column = kAlphaDwarfRa;
  uint8_t pointer_encoding = DW_EH_PE_absptr;
  bool augmented = false;     // 'z': FDEs carry an augmentation length
  bool signal_frame = false;  // 'S': the frame is a trap's (kernel/entry.S)
  std::span<const uint8_t> instructions;
};

struct Fde {
  uint64_t begin = 0, end = 0;
  size_t cie_offset = 0;
  std::span<const uint8_t> instructions;
};

// A bounds-checked little-endian reader over one section.
class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, size_t at, uint64_t section_address)
      : bytes_(bytes), at_(at), address_(section_address) {}
  bool ok() const { return ok_; }
  size_t at() const { return at_; }
  void seek(size_t at) { at_ = at, ok_ = ok_ && at <= bytes_.size(); }
  uint64_t fixed(size_t n) {
    if (!ok_ || bytes_.size() - at_ < n) return fail();
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t{bytes_[at_ + i]} << (8 * i);
    at_ += n;
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (int shift = 0; ok_ && shift < 64; shift += 7) {
      const uint64_t byte = fixed(1);
      v |= (byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    return fail();
  }
  int64_t sleb() {
    int64_t v = 0;
    int shift = 0;
    uint64_t byte = 0x80;
    while (ok_ && (byte & 0x80) && shift < 64) {
      byte = fixed(1);
      v |= static_cast<int64_t>(byte & 0x7f) << shift;
      shift += 7;
    }
    if (shift < 64 && (byte & 0x40)) v |= -(int64_t{1} << shift);
    return v;
  }
  // A pointer in DW_EH_PE_* `encoding` (absolute or pc-relative only).
  uint64_t pointer(uint8_t encoding) {
    const uint64_t field = address_ + at_;
    uint64_t v = 0;
    switch (encoding & 0x0f) {
      case DW_EH_PE_absptr:
        v = fixed(8);
        break;
      case DW_EH_PE_uleb128:
        v = uleb();
        break;
      case DW_EH_PE_udata2:
        v = fixed(2);
        break;
      case DW_EH_PE_udata4:
        v = fixed(4);
        break;
      case DW_EH_PE_udata8:
        v = fixed(8);
        break;
      case DW_EH_PE_sleb128:
        v = static_cast<uint64_t>(sleb());
        break;
      case DW_EH_PE_sdata2:
        v = static_cast<uint64_t>(static_cast<int16_t>(fixed(2)));
        break;
      case DW_EH_PE_sdata4:
        v = static_cast<uint64_t>(static_cast<int32_t>(fixed(4)));
        break;
      case DW_EH_PE_sdata8:
        v = fixed(8);
        break;
      default:
        return fail();
    }
    switch (encoding & 0x70) {
      case DW_EH_PE_absptr:
        return v;
      case DW_EH_PE_pcrel:
        return v + field;
      default:
        return fail();
    }
  }
  std::span<const uint8_t> bytes(size_t n) {
    if (!ok_ || bytes_.size() - at_ < n) return fail(), std::span<const uint8_t>{};
    const auto out = bytes_.subspan(at_, n);
    at_ += n;
    return out;
  }

 private:
  uint64_t fail() {
    ok_ = false;
    return 0;
  }
  std::span<const uint8_t> bytes_;
  size_t at_;
  uint64_t address_;
  bool ok_ = true;
};

bool parse_cie(std::span<const uint8_t> section, uint64_t address, size_t at, size_t end,
               Cie& cie) {
  Reader r(section.first(end), at, address);
  const uint64_t version = r.fixed(1);
  std::string augmentation;
  for (uint64_t c = r.fixed(1); r.ok() && c != 0; c = r.fixed(1))
    augmentation.push_back(static_cast<char>(c));
  cie.code_align = r.uleb();
  cie.data_align = r.sleb();
  cie.ra_column = static_cast<uint32_t>(version == 1 ? r.fixed(1) : r.uleb());
  if (!augmentation.empty() && augmentation[0] == 'z') {
    cie.augmented = true;
    const uint64_t length = r.uleb();
    const size_t data_end = r.at() + length;
    for (char c : augmentation.substr(1)) {
      if (c == 'R')
        cie.pointer_encoding = static_cast<uint8_t>(r.fixed(1));
      else if (c == 'P')
        r.pointer(static_cast<uint8_t>(r.fixed(1)));
      else if (c == 'L')
        r.fixed(1);
      else if (c == 'S')
        cie.signal_frame = true;
      else
        break;  // unknown: the length says where the data ends
    }
    r.seek(data_end);
  } else if (!augmentation.empty()) {
    return false;  // without 'z' an unknown augmentation cannot be skipped
  }
  if (!r.ok() || r.at() > end || cie.ra_column >= kRegisters) return false;
  cie.instructions = section.subspan(r.at(), end - r.at());
  return true;
}

// Runs `program` from `row` up to the row that covers `pc` (location starts at `loc`).
void execute(std::span<const uint8_t> program, const Cie& cie, uint64_t loc, uint64_t pc,
             const Row& initial, Row& row) {
  Reader r(program, 0, 0);
  std::vector<Row> stack;
  auto rule = [&row](uint64_t reg) -> Rule* {
    return reg < kRegisters ? &row.rules[reg] : nullptr;
  };
  auto set = [&](uint64_t reg, Rule::Kind kind, int64_t n) {
    if (Rule* x = rule(reg))
      *x = Rule{kind, n};
    else
      row.bad = true;
  };
  while (r.ok() && r.at() < program.size()) {
    const uint8_t op = static_cast<uint8_t>(r.fixed(1));
    const uint8_t high = op & 0xc0, low = op & 0x3f;
    uint64_t advance = 0;
    if (high == DW_CFA_advance_loc) {
      advance = low;
    } else if (high == DW_CFA_offset) {
      set(low, Rule::kOffset, static_cast<int64_t>(r.uleb()) * cie.data_align);
    } else if (high == DW_CFA_restore) {
      set(low, initial.rules[low].kind, initial.rules[low].n);
    } else {
      switch (op) {
        case DW_CFA_nop:
          break;
        case DW_CFA_set_loc:
          loc = r.pointer(cie.pointer_encoding);
          break;
        case DW_CFA_advance_loc1:
          advance = r.fixed(1);
          break;
        case DW_CFA_advance_loc2:
          advance = r.fixed(2);
          break;
        case DW_CFA_advance_loc4:
          advance = r.fixed(4);
          break;
        case DW_CFA_offset_extended: {
          const uint64_t reg = r.uleb();
          set(reg, Rule::kOffset, static_cast<int64_t>(r.uleb()) * cie.data_align);
          break;
        }
        case DW_CFA_offset_extended_sf: {
          const uint64_t reg = r.uleb();
          set(reg, Rule::kOffset, r.sleb() * cie.data_align);
          break;
        }
        case DW_CFA_val_offset: {
          const uint64_t reg = r.uleb();
          set(reg, Rule::kValOffset, static_cast<int64_t>(r.uleb()) * cie.data_align);
          break;
        }
        case DW_CFA_val_offset_sf: {
          const uint64_t reg = r.uleb();
          set(reg, Rule::kValOffset, r.sleb() * cie.data_align);
          break;
        }
        case DW_CFA_restore_extended: {
          const uint64_t reg = r.uleb();
          if (reg < kRegisters) row.rules[reg] = initial.rules[reg];
          break;
        }
        case DW_CFA_undefined:
          set(r.uleb(), Rule::kUndefined, 0);
          break;
        case DW_CFA_same_value:
          set(r.uleb(), Rule::kSame, 0);
          break;
        case DW_CFA_register: {
          const uint64_t reg = r.uleb();
          set(reg, Rule::kRegister, static_cast<int64_t>(r.uleb()));
          break;
        }
        case DW_CFA_remember_state:
          stack.push_back(row);
          break;
        case DW_CFA_restore_state: {
          if (stack.empty()) {
            row.bad = true;
            break;
          }
          // The CFA is not part of the remembered state's rules in GCC's
          // output, but DWARF says both are restored: restore both.
          row = stack.back();
          stack.pop_back();
          break;
        }
        case DW_CFA_def_cfa:
          row.cfa_register = static_cast<int>(r.uleb());
          row.cfa_offset = static_cast<int64_t>(r.uleb());
          row.cfa_expression = false;
          break;
        case DW_CFA_def_cfa_sf:
          row.cfa_register = static_cast<int>(r.uleb());
          row.cfa_offset = r.sleb() * cie.data_align;
          row.cfa_expression = false;
          break;
        case DW_CFA_def_cfa_register:
          row.cfa_register = static_cast<int>(r.uleb());
          break;
        case DW_CFA_def_cfa_offset:
          row.cfa_offset = static_cast<int64_t>(r.uleb());
          break;
        case DW_CFA_def_cfa_offset_sf:
          row.cfa_offset = r.sleb() * cie.data_align;
          break;
        case DW_CFA_def_cfa_expression:
          r.bytes(r.uleb());
          row.cfa_expression = true;
          break;
        case DW_CFA_expression:
        case DW_CFA_val_expression: {
          const uint64_t reg = r.uleb();
          r.bytes(r.uleb());
          set(reg, Rule::kUndefined, 0);  // not evaluated: this register is lost
          break;
        }
        case DW_CFA_GNU_args_size:
          r.uleb();
          break;
        case DW_CFA_GNU_negative_offset_extended: {
          const uint64_t reg = r.uleb();
          set(reg, Rule::kOffset, -static_cast<int64_t>(r.uleb()) * cie.data_align);
          break;
        }
        default:
          row.bad = true;
          return;
      }
    }
    if (advance != 0) {
      loc += advance * cie.code_align;
      if (loc > pc) return;  // the row in force at pc is complete
    }
  }
  if (!r.ok()) row.bad = true;
}

}  // namespace

struct CfiTable::Handles {
  std::vector<uint8_t> section;  // .eh_frame's bytes
  uint64_t address = 0;          // its ELF address
  std::vector<Fde> fdes;         // sorted by begin
  std::map<size_t, Cie> cies;    // by offset
};

CfiTable::CfiTable(std::unique_ptr<Handles> handles) : handles_(std::move(handles)) {}
CfiTable::~CfiTable() = default;

namespace {

// .eh_frame's bytes and address; false if the file has none.
bool read_eh_frame(const std::string& path, std::vector<uint8_t>& bytes, uint64_t& address,
                   std::string* problem) {
  elf_version(EV_CURRENT);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *problem = "cannot open " + path;
    return false;
  }
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  bool found = false;
  size_t names = 0;
  if (elf != nullptr && elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &names) == 0) {
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr header;
      if (gelf_getshdr(scn, &header) == nullptr || header.sh_type != SHT_PROGBITS) continue;
      const char* name = elf_strptr(elf, names, header.sh_name);
      if (name == nullptr || std::strcmp(name, ".eh_frame") != 0) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (data == nullptr || data->d_buf == nullptr) break;
      const auto* begin = static_cast<const uint8_t*>(data->d_buf);
      bytes.assign(begin, begin + data->d_size);
      address = header.sh_addr;
      found = true;
      break;
    }
  }
  if (elf != nullptr) elf_end(elf);
  close(fd);
  if (!found) *problem = path + " has no .eh_frame";
  return found;
}

}  // namespace

std::unique_ptr<CfiTable> CfiTable::open(const std::string& path, std::string* problem) {
  auto handles = std::make_unique<Handles>();
  if (!read_eh_frame(path, handles->section, handles->address, problem)) return nullptr;
  const std::span<const uint8_t> section(handles->section);
  Reader r(section, 0, handles->address);
  while (r.ok() && r.at() + 4 <= section.size()) {
    const size_t start = r.at();
    uint64_t length = r.fixed(4);
    if (length == 0) break;  // the terminator
    if (length == 0xffffffff) length = r.fixed(8);
    const size_t id_at = r.at();
    if (!r.ok() || length > section.size() - id_at) break;
    const size_t end = id_at + length;
    const uint64_t id = r.fixed(4);
    if (id == 0) {
      Cie cie;
      if (parse_cie(section, handles->address, r.at(), end, cie)) handles->cies[start] = cie;
    } else if (id <= id_at) {
      const size_t cie_offset = id_at - id;
      const auto cie = handles->cies.find(cie_offset);
      if (cie != handles->cies.end()) {
        Fde fde;
        fde.cie_offset = cie_offset;
        fde.begin = r.pointer(cie->second.pointer_encoding);
        fde.end = fde.begin + r.pointer(cie->second.pointer_encoding & 0x0f);
        if (cie->second.augmented) r.bytes(r.uleb());  // 'z': the FDE's augmentation data
        fde.instructions = section.subspan(r.at(), end - r.at());
        if (r.ok() && r.at() <= end) handles->fdes.push_back(fde);
      }
    }
    r.seek(end);
  }
  if (handles->fdes.empty()) {
    *problem = path + ": .eh_frame has no usable FDE";
    return nullptr;
  }
  std::sort(handles->fdes.begin(), handles->fdes.end(),
            [](const Fde& a, const Fde& b) { return a.begin < b.begin; });
  return std::unique_ptr<CfiTable>(new CfiTable(std::move(handles)));
}

UnwindStep CfiTable::step(uint64_t elf_pc, const UnwindRegisters& regs,
                          const StackReader& read) const {
  UnwindStep result;
  const auto& fdes = handles_->fdes;
  auto it = std::upper_bound(fdes.begin(), fdes.end(), elf_pc,
                             [](uint64_t pc, const Fde& f) { return pc < f.begin; });
  if (it == fdes.begin() || elf_pc >= std::prev(it)->end) {
    result.stop = UnwindStop::kNoCfi;
    return result;
  }
  const Fde& fde = *std::prev(it);
  const Cie& cie = handles_->cies.at(fde.cie_offset);
  Row initial;
  execute(cie.instructions, cie, 0, ~uint64_t{0}, initial, initial);
  Row row = initial;
  execute(fde.instructions, cie, fde.begin, elf_pc, initial, row);
  if (row.bad || row.cfa_expression) {
    result.stop = UnwindStop::kBadCfi;
    return result;
  }
  if (row.cfa_register < 0 || row.cfa_register >= 32 || !regs.has(row.cfa_register)) {
    result.stop = UnwindStop::kNoRegister;
    return result;
  }
  const uint64_t cfa = regs.value[row.cfa_register] + static_cast<uint64_t>(row.cfa_offset);
  // The caller's value of `reg`; nullopt with `why` when it cannot be had.
  auto recover = [&](uint32_t reg, UnwindStop* why) -> std::optional<uint64_t> {
    const Rule& rule = row.rules[reg];
    uint64_t value = 0;
    switch (rule.kind) {
      case Rule::kSame:
        if (reg < 32 && regs.has(static_cast<int>(reg))) return regs.value[reg];
        *why = UnwindStop::kNoRegister;
        return std::nullopt;
      case Rule::kUndefined:
        *why = UnwindStop::kOutermost;
        return std::nullopt;
      case Rule::kOffset:
        if (read(cfa + static_cast<uint64_t>(rule.n), &value)) return value;
        *why = UnwindStop::kNoMemory;
        return std::nullopt;
      case Rule::kValOffset:
        return cfa + static_cast<uint64_t>(rule.n);
      case Rule::kRegister:
        if (rule.n >= 0 && rule.n < 32 && regs.has(static_cast<int>(rule.n)))
          return regs.value[rule.n];
        *why = UnwindStop::kNoRegister;
        return std::nullopt;
    }
    return std::nullopt;
  };
  UnwindStop why = UnwindStop::kOutermost;
  const std::optional<uint64_t> ra = recover(cie.ra_column, &why);
  if (!ra) {
    result.stop = why;
    return result;
  }
  UnwindRegisters caller;
  for (uint32_t reg = 0; reg < 32; ++reg) {
    if (reg == kAlphaDwarfSp) continue;
    UnwindStop ignored;
    if (const std::optional<uint64_t> value = recover(reg, &ignored))
      caller.set(static_cast<int>(reg), *value);
  }
  // Alpha: the CFA is the caller's sp at the call, unless the CFI says where
  // sp was saved (hand-written code that switches stacks).
  caller.set(kAlphaDwarfSp, cfa);
  if (row.rules[kAlphaDwarfSp].kind != Rule::kSame &&
      row.rules[kAlphaDwarfSp].kind != Rule::kUndefined) {
    UnwindStop ignored;
    if (const std::optional<uint64_t> sp = recover(kAlphaDwarfSp, &ignored))
      caller.set(kAlphaDwarfSp, *sp);
  }
  result.return_address = *ra;
  result.resumes = cie.signal_frame;
  result.caller = caller;
  return result;
}

std::optional<std::pair<uint64_t, uint64_t>> CfiTable::function_range(uint64_t elf_pc) const {
  const auto& fdes = handles_->fdes;
  auto it = std::upper_bound(fdes.begin(), fdes.end(), elf_pc,
                             [](uint64_t pc, const Fde& f) { return pc < f.begin; });
  if (it == fdes.begin() || elf_pc >= std::prev(it)->end) return std::nullopt;
  return std::pair{std::prev(it)->begin, std::prev(it)->end};
}

std::vector<std::pair<uint64_t, uint64_t>> CfiTable::function_ranges() const {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  ranges.reserve(handles_->fdes.size());
  for (const Fde& fde : handles_->fdes) ranges.emplace_back(fde.begin, fde.end);
  return ranges;
}

namespace {

std::mutex kept_tables_mutex;  // dcpi calc --all names procedures on several threads

// The table of `path`, opened once per process; null without CFI. Called
// with kept_tables_mutex held.
const CfiTable* kept_table(const std::string& path) {
  static std::map<std::string, std::unique_ptr<CfiTable>> tables;
  auto found = tables.find(path);
  if (found == tables.end()) {
    std::string problem;
    found = tables.emplace(path, CfiTable::open(path, &problem)).first;
  }
  return found->second.get();
}

}  // namespace

std::optional<std::pair<uint64_t, uint64_t>> cfi_function_range(const std::string& path,
                                                                uint64_t elf_pc) {
  const std::lock_guard lock(kept_tables_mutex);
  const CfiTable* table = kept_table(path);
  return table ? table->function_range(elf_pc) : std::nullopt;
}

std::vector<std::pair<uint64_t, uint64_t>> cfi_function_ranges(const std::string& path) {
  const std::lock_guard lock(kept_tables_mutex);
  const CfiTable* table = kept_table(path);
  return table ? table->function_ranges() : std::vector<std::pair<uint64_t, uint64_t>>{};
}

const char* unwind_stop_name(UnwindStop stop) {
  switch (stop) {
    case UnwindStop::kOutermost:
      return "complete";
    case UnwindStop::kNoCfi:
      return "no CFI";
    case UnwindStop::kNoRegister:
      return "register not captured";
    case UnwindStop::kNoMemory:
      return "stack slice too short";
    case UnwindStop::kBadCfi:
      return "CFI not understood";
  }
  return "?";
}

}  // namespace dcpi
