// Which registers a call may change (DCPI §6.1.1's CFG reasoning across
// calls, here for jump_tables.h's constant propagation). The calling
// standard lets a callee change every caller-saved register, but many
// callees change far fewer: GCC's integer division helpers (`__divq`,
// `__remq`, ... called with `bsr t9`/`jsr t9`) change only t9 (their return
// address), t12 (the result) and AT, and a small leaf changes only the
// registers it writes. Forgetting a register that survives the call loses,
// e.g., the jump table base an interpreter keeps in a register across the
// division in one of its cases (issue 17).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/calc/model/instruction_record.h"

namespace dcpi::calc {

using RegisterMask = uint32_t;  // bit r: integer register r

// A `jmp (pv)` that resolve_indirect_jumps rewrote to kReturn: it leaves
// for another procedure, whose effects and code the summaries here do not
// follow.
bool is_tail_call(const InstructionRecord& r);

// v0, t0-t7, a0-a5, t8-t11, ra, pv, AT, gp: what any callee may change
// (Alpha calling standard; s0-s5, fp and sp survive).
RegisterMask caller_saved_registers();

// GCC's division helpers: alpha.md's divmod patterns take the dividend in
// t10 ($24), the divisor in t11 ($25), return the result in t12 ($27) and
// the return address in t9 ($23), and clobber only t9 and AT ($28); GCC
// keeps t10 and t11 live across the call. newlib has no such helpers:
// toolchain/newlib/alpha-divide.S provides them with that contract (as do
// glibc's sysdeps/alpha/div*.S and Linux's arch/alpha/lib/divide.S).
// Returns the mask for one of __divq __divqu __remq __remqu __divl __divlu
// __reml __remlu, else nothing.
std::optional<RegisterMask> division_helper_clobbers(std::string_view name);

// The integer registers a CALL_PAL of OSF/1's unprivileged PALcode changes,
// for the calls whose effect is fixed: rduniq writes v0 (glibc reads its
// thread pointer so, for errno and TLS), wruniq and imb nothing, nor do the
// error traps bpt, bugchk and gentrap (a handler's return restores every
// register), callsys
// what Linux's system call may change (v0, a3's error flag, and glibc's
// inline_syscall_clobbers: t0-t7, a0-a5, t8-t11, t12, AT; gp, ra, sp and
// s0-s6 survive). Nothing for the others (the caller-saved set applies).
std::optional<RegisterMask> pal_call_clobbers(uint32_t function);

struct ProcedureCalls {
  std::string name;
  uint64_t start = 0;
  std::span<const InstructionRecord> records;  // decoded, tail calls rewritten
};

// What each procedure of an image may change, by its start address, for a
// call that reaches it: the division helpers by their contract; any other
// procedure by the caller-saved registers it or its callees write (a fixed
// point over the call graph). A procedure that calls or jumps where the
// analysis cannot follow (jsr through a register, an indirect jmp, a branch
// to another procedure, CALL_PAL) may change every caller-saved register.
class CallClobbers {
 public:
  CallClobbers() = default;
  explicit CallClobbers(std::span<const ProcedureCalls> procedures);

  // The mask for a call to `target` (a procedure's start or its ldgp entry
  // +8); every caller-saved register for an unknown target.
  RegisterMask of(std::optional<uint64_t> target) const;
  // The mask for `call` reaching `target`: of(target) for a procedure of
  // the image; for another (a GOT entry the dynamic linker fills) returning to
  // t9, the division helpers' contract: GCC calls nothing else with
  // `jsr t9` (alpha.md's millicode convention; sqlite3VdbeExec's `jsr
  // t9,(t12)` to glibc's __remqu keeps its gp and jump table base).
  RegisterMask of_call(const InstructionRecord& call, std::optional<uint64_t> target) const;
  // The callee's name, for messages ("" if unknown).
  std::string_view name_of(uint64_t target) const;

 private:
  struct Callee {
    std::string name;
    RegisterMask clobbers = 0;
  };
  std::unordered_map<uint64_t, Callee> by_entry_;  // start and start + 8
};

}  // namespace dcpi::calc
