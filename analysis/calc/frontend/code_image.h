// dcpicalc's view of one executable image (DCPI §6.1.1: "the CFG is built by
// extracting the code for a procedure from the executable image"): procedure
// ranges from the ELF symbol table, their words decoded into
// InstructionRecords by analysis/calc/decode/isa_adapter.h. Built on the one ELF
// model (symbols/elf_image.h), which also gives calc its source
// lines; the image's constant data (.rodata, the GOT) is kept for reading
// switch tables (analysis/calc/decode/jump_tables.h).
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/calc/decode/call_footprints.h"
#include "analysis/calc/decode/isa_adapter.h"
#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/estimate/procedure_analysis.h"
#include "analysis/calc/model/instruction_record.h"
#include "isa/instruction.h"
#include "symbols/elf_image.h"

namespace dcpi {

struct ProcedureRange {
  std::string name;
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
};

struct ProcedureCode {
  ProcedureRange range;
  std::vector<calc::InstructionRecord> records;    // tail calls rewritten, jump tables read
  std::vector<calc::IndirectJump> indirect_jumps;  // every jmp, classified
  std::vector<uint64_t> extra_entries;             // e.g. the entry after the ldgp prologue
};

class CodeImage {
 public:
  // Reads the ELF file (throws ElfError, also for a stripped file). `mode`:
  // isa::DecodeMode::kPalcode for the PALcode image; by default
  // decode_mode_for_image guesses from the file name.
  static CodeImage open(const std::string& path, std::optional<isa::DecodeMode> mode = {});

  const std::string& path() const { return elf_->path(); }
  isa::DecodeMode mode() const { return mode_; }
  const std::optional<std::string>& build_id() const { return elf_->build_id(); }
  // The whole image model, with the source lines a listing prints: read
  // again, with its DWARF line tables, at the first call. open() reads no
  // lines, which dcpi calc --all and bench-calc never print (the line tables
  // were most of loading an image: issue 31).
  const ElfImage& elf() const;
  // Procedures by address: STT_FUNC symbols, or, in an image without any
  // (hand-written PALcode), every named code label. A procedure without a size
  // ends at the next one or at the end of its section.
  const std::vector<ProcedureRange>& procedures() const { return procedures_; }
  // By exact name, or the one GCC clone of it (NAME.constprop.0, NAME.isra.0).
  const ProcedureRange* find(std::string_view name) const;
  const ProcedureRange* containing(uint64_t address) const;
  uint64_t code_bytes() const { return code_bytes_; }

  ProcedureCode code(const ProcedureRange& procedure) const;
  // What a call to each procedure may change (jump tables across calls).
  const calc::CallClobbers& call_clobbers() const { return *calls_; }
  // What culprit analysis asks of the image's calls (culprits.h): the code
  // a call may run and the registers it may change.
  void describe_calls(calc::CulpritOptions& options) const;

 private:
  std::vector<calc::InstructionRecord> decode(const ProcedureRange& procedure) const;
  void summarize_calls();
  // The local entry point and the jump tables of a procedure's records.
  void complete(ProcedureCode& code) const;

  // Each procedure of procedures_ as summarize_calls decoded it (tail calls
  // rewritten): code() starts from a copy instead of decoding every word a
  // second time. The first code() of a procedure also reads its jump tables
  // into it (complete()), once for every later call: a whole-image analysis
  // asks twice, once per estimator, and the tables' dataflow was ~15 % of it
  // (issue 31). Threads analysing procedures call code() at once, hence one
  // once_flag per procedure.
  struct Decoded {
    std::vector<calc::InstructionRecord> records;
    std::vector<calc::IndirectJump> indirect_jumps;
    std::vector<uint64_t> extra_entries;
  };
  mutable std::vector<Decoded> decoded_;         // parallel to procedures_
  std::unique_ptr<std::once_flag[]> completed_;  // parallel to procedures_

  struct Section {
    uint64_t address = 0;
    std::vector<uint32_t> words;
  };
  std::shared_ptr<const ElfImage> elf_;  // without line tables
  struct WithLines {
    std::once_flag read;
    std::shared_ptr<const ElfImage> elf;
  };
  std::shared_ptr<WithLines> with_lines_ = std::make_shared<WithLines>();  // elf()'s
  isa::DecodeMode mode_ = isa::DecodeMode::kUser;
  std::vector<Section> sections_;
  calc::ImageData constant_data_;  // read-only sections and the GOT
  // Shared: culprit options keep them beyond the image's moves.
  std::shared_ptr<const calc::CallClobbers> calls_;
  std::shared_ptr<const calc::CallFootprints> footprints_;
  std::vector<ProcedureRange> procedures_;
  uint64_t code_bytes_ = 0;
};

// The procedure of the image that --procedure QUERY names, by the rules
// every report shares (symbols/procedure_match.h); throws
// ProcedureMatchError with the candidates on none or several, those with
// `samples` first.
const ProcedureRange& select_code_procedure(const CodeImage& code, const std::string& query,
                                            const calc::SamplesByAddress* samples = nullptr);

}  // namespace dcpi
