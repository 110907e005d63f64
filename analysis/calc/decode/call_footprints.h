// The code a call may run, for dcpicalc's I-cache rule across calls (DCPI
// §6.3: a candidate is kept unless it is "impossible or extremely
// unlikely"). A loop that calls only procedures whose code, with its own,
// maps each I-cache line to a set of its own misses each line at most once
// per entry into the loop (analysis/calc/estimate/culprits.cpp): an
// interpreter's dispatch loop that calls the division helpers (bytecode's
// `bsr t9,__divq`) is such a loop.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "analysis/calc/decode/call_clobbers.h"

namespace dcpi::calc {

class CallFootprints {
 public:
  CallFootprints() = default;
  explicit CallFootprints(std::span<const ProcedureCalls> procedures);

  // The procedures a call to `target` (a procedure's start or its ldgp entry
  // +8) may run: its own and those it reaches by bsr and by branches into
  // other procedures (__divq's `beq t11,__divq_by_zero`), transitively.
  // Nothing where the analysis cannot follow (an unknown target, jsr
  // through a register, an unresolved jmp, a tail call, a CALL_PAL other
  // than the error traps) or where the code reached exceeds `max_bytes`.
  // The error traps (gentrap, bpt, bugchk) end the normal flow in a signal:
  // like interrupts in §6.3's footnote 8, their code is not counted.
  std::optional<std::vector<CodeRange>> of(uint64_t target, uint64_t max_bytes) const;

 private:
  struct Reach {
    CodeRange code;
    std::vector<uint64_t> targets;  // procedures entered by bsr or a branch out
    bool unknown = false;
  };
  std::optional<size_t> procedure_at(uint64_t address) const;

  std::vector<Reach> procedures_;
  std::unordered_map<uint64_t, size_t> by_entry_;  // start and start + 8
};

}  // namespace dcpi::calc
