// The one model of an ELF image that every analysis tool reads (DCPI §3:
// dcpiprof names procedures, dcpilist shows instructions and source; §6.1.1:
// dcpicalc "extracts the code for a procedure from the executable image"):
// symbols (elf_symbols.h), the loaded sections' bytes, the GNU build-id and
// DWARF line tables. One reader (elf_reader.cpp, libelf + libdw) fills it in a
// single pass over the file; everything is copied out at open time, so
// lookups never touch elfutils again. Symbolization, disassembly, listings
// and calc's CodeImage (analysis/calc/frontend/code_image.h) all sit on top of it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/isa.h"
#include "symbols/elf_symbols.h"

namespace dcpi {

// The guess made when nothing says how to decode an image: a file whose name
// contains "palcode" holds PALcode (the hw_* opcodes; isa/README: what GNU as
// -m21264 emitted there), anything else user/kernel code. The one place the
// tools guess from a file name.
isa::DecodeMode decode_mode_for_image(const std::string& path);

// A section with file contents (SHT_PROGBITS) that is allocated or
// executable: code, read-only data, the GOT, data.
struct ElfSection {
  std::string name;
  uint64_t address = 0;
  bool allocated = false;
  bool executable = false;
  bool writable = false;
  std::vector<uint8_t> bytes;
};

// An executable section as little-endian 32-bit instruction words.
struct CodeSection {
  std::string name;
  uint64_t address = 0;
  std::vector<uint32_t> words;
};

// What a program loader reads from the ELF and program headers (ld.so, the
// kernel's ELF loader): the bundler puts a program's loader and libraries in
// the initrd with it (qemu/bundle/, `dcpi run -- PROGRAM`). Always read; it
// costs one pass over the program headers and the dynamic section.
struct ElfLoadInfo {
  bool alpha = false;               // ELFCLASS64, little-endian, EM_ALPHA
  bool executable = false;          // ET_EXEC or ET_DYN
  uint64_t entry = 0;               // e_entry: the first instruction a process runs here
  std::string interpreter;          // PT_INTERP; empty for a static program
  std::vector<std::string> needed;  // DT_NEEDED, in file order
  bool has_tls = false;             // a PT_TLS segment
  // Where the ELF header itself is mapped: p_vaddr of the PT_LOAD that
  // starts at file offset 0 (glibc finds it as __ehdr_start).
  std::optional<uint64_t> header_address;
  // Why a loader could not read this file (a program header or the dynamic
  // section outside it: truncated, damaged); empty when it could. The
  // bundler refuses such a file before boot (symbols/elf_load_check.h).
  std::string problem;
};

// What to read besides the symbols: skipping contents, DWARF and the
// procedure index keeps symbol lookups (ElfSymbols::open) cheap.
struct ElfReadOptions {
  bool section_contents = true;
  bool line_tables = true;
  bool procedures = true;  // the code-symbol index behind procedure_at and friends
};

struct SourceLocation {
  std::string file;  // as DWARF names it (absolute when the compile directory is known)
  int line = 0;
};

// How a procedure was named: from a function symbol, from the nearest
// preceding symbol of any type (hand-written assembly often has only labels),
// or not at all (a stripped binary: the address is all we know).
// kFrameInfo: code no symbol names (a stripped library's static functions),
// bounded by the .eh_frame FDE that covers it and named by its start address.
enum class ProcedureSource { kFunctionSymbol, kNearestSymbol, kFrameInfo, kAddressOnly };

struct Procedure {
  std::string name;    // demangled
  uint64_t start = 0;  // ELF virtual address
  uint64_t size = 0;   // 0 = unknown (nearest-symbol fallbacks, unsized symbols)
  ProcedureSource source = ProcedureSource::kAddressOnly;
};

class ElfImage {
 public:
  // Throws ElfError for a missing, non-ELF or malformed file. A stripped file
  // opens with no symbols. Missing or damaged DWARF is not an error:
  // has_line_info() is then false and dwarf_problem() says why.
  static ElfImage open(const std::string& path, ElfReadOptions options = {});

  const std::string& path() const { return symbols_.path(); }
  const ElfSymbols& symbols() const { return symbols_; }
  const std::optional<std::string>& build_id() const { return symbols_.build_id(); }
  const ElfLoadInfo& load_info() const { return load_info_; }

  // The procedure containing `address`: a PLT stub (`foo@plt`, from the
  // lazy-binding relocations), a function symbol, else the nearest
  // preceding symbol in the same executable section, else (code without
  // symbols) the FDE's range, named "0x<start>"; nullopt if none.
  std::optional<Procedure> procedure_at(uint64_t address) const;
  // The procedure named `name` (function symbols first, then any code symbol).
  std::optional<Procedure> procedure_named(const std::string& name) const;
  // The raw names procedure_named accepts, function symbols first, then the
  // other code symbols (for procedure_match.h).
  std::vector<std::string> procedure_symbols() const;
  // Where the next procedure starts after `procedure` (to bound unsized ones),
  // clipped to the end of its executable section.
  uint64_t procedure_end(const Procedure& procedure) const;

  bool has_line_info() const { return !line_rows_.empty(); }
  const std::string& dwarf_problem() const { return dwarf_problem_; }
  std::optional<SourceLocation> source_at(uint64_t address) const;

  // The 32-bit instruction word at `address` (little-endian), if it lies in
  // an allocated, executable section with file contents.
  std::optional<uint32_t> instruction_at(uint64_t address) const;

  // Every loaded section, in file order (needs section_contents). Throws
  // ElfError when the contents cannot be read as Alpha code and data: a
  // big-endian file, or one without section names.
  const std::vector<ElfSection>& sections() const;
  // The executable sections as instruction words (for disassembly and calc).
  std::vector<CodeSection> code_sections() const;

  // Internal: one row of the DWARF line table.
  struct LineRow {
    uint64_t address = 0;
    uint32_t file_index = 0;
    int line = 0;
    bool end_sequence = false;
  };

 private:
  friend class ElfReader;
  friend class ElfSymbols;  // ElfSymbols::open reads through an ElfImage
  explicit ElfImage(ElfSymbols symbols) : symbols_(std::move(symbols)) {}
  const CodeRange* code_range_of(uint64_t address) const;
  std::optional<Procedure> symbol_procedure_at(uint64_t address, const CodeRange& range) const;
  std::optional<Procedure> frame_procedure_at(uint64_t address) const;

  ElfSymbols symbols_;
  ElfLoadInfo load_info_;
  std::vector<ElfSymbol> code_symbols_;  // every symbol inside code, by address
  std::vector<ElfSymbol> plt_stubs_;     // "foo@plt", by address (elf_reader.cpp)
  std::vector<LineRow> line_rows_;       // sorted by address, end-of-sequence first
  std::vector<std::string> source_files_;
  std::string dwarf_problem_;
  std::vector<ElfSection> sections_;
  std::string sections_problem_;  // why sections() cannot be trusted, if it cannot
};

}  // namespace dcpi
