// Switch tables behind indirect jumps (DCPI §6.1.1: a jump whose targets are
// unknown leaves the CFG with "missing edges", and §6.1.2 then gives every
// block and edge its own frequency class). GCC for Alpha compiles a dense
// switch into a bounds check, a table of 32-bit gp-relative offsets in
// .rodata, and `s4addq idx,table,t; ldl t,0(t); addq gp,t,t; jmp (t)`.
// This unit reads such tables from the image: the table address and gp come
// from a small constant propagation over the procedure, the entry count from
// the bounds check (or another instruction that bounds the index), and the
// targets from the image's read-only data. Anything it cannot prove is left
// unresolved: the CFG keeps its missing edges. README.md ("Jump tables") has
// the instruction patterns found in the guest binaries.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/calc/decode/call_clobbers.h"
#include "analysis/calc/model/instruction_record.h"

namespace dcpi::calc {

// The image's constant data: read-only sections (.rodata, .text) and the
// GOT, which in these statically linked images the linker fills and nothing
// rewrites at run time (there is no dynamic loader).
class ImageData {
 public:
  void add(uint64_t address, std::vector<uint8_t> bytes);
  // `bytes` (1 to 8) little-endian bytes at `address`, all inside one segment.
  std::optional<uint64_t> read(uint64_t address, unsigned bytes) const;

 private:
  struct Segment {
    uint64_t address = 0;
    std::vector<uint8_t> bytes;
  };
  std::vector<Segment> segments_;
};

struct JumpTable {
  uint64_t table = 0;             // address of entry 0
  uint64_t entries = 0;           // largest index the code allows + 1 (from the bounds check)
  uint64_t base = 0;              // added to each sign-extended 32-bit entry: the procedure's gp
  std::vector<uint64_t> targets;  // distinct, ascending, all inside the procedure
};

// What became of one indirect jump (a kIndirectJump record).
struct JumpTableOutcome {
  uint64_t jump = 0;               // address of the jmp
  std::optional<JumpTable> table;  // set when resolved
  std::string problem;             // why not, when unresolved
};

// Resolves the jump tables of one procedure (records in address order; tail
// calls already rewritten by resolve_indirect_jumps). It either resolves
// every remaining indirect jump — then each jmp record's jump_targets holds
// its targets and build_cfg adds those edges instead of marking missing
// edges — or changes nothing: with one jump unresolved the CFG has missing
// edges anyway, and a jump whose targets are unknown could enter the code the
// analysis reasoned about. `extra_entries` are build_cfg's; `calls` says
// which registers each call may change (call_clobbers.h; by default the
// calling standard's caller-saved set for every call).
std::vector<JumpTableOutcome> resolve_jump_tables(std::vector<InstructionRecord>& procedure,
                                                  std::span<const uint64_t> extra_entries,
                                                  const ImageData& data,
                                                  const CallClobbers& calls = {});

}  // namespace dcpi::calc
