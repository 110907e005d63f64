// What an instruction does to the calling context (seed 002 §3): a user call
// (bsr/jsr writing a link register), return, jsr_coroutine, or the kernel's
// thread switch (CALL_PAL swpctx). Shared by both plugins that build trees.
#pragma once
#include <cstdint>

#include "firmware/pal_abi.h"
#include "isa/decode.h"

namespace dcpi::contexts {

// kJump: `br $31`, a direct jump, which is a tail call when the procedure
// has freed its frame (ThreadContexts::tail_jump checks the stack pointer)
// and the target is another procedure's entry (is_tail_call_target).
enum class TransferKind : uint8_t { kPlain, kCall, kReturn, kCoroutine, kSwitch, kJump };

inline TransferKind transfer_kind(uint32_t word, bool user) {
  const isa::Instruction in = isa::decode(word);
  using isa::Operation;
  if (!user) {
    const bool swpctx = in.operation == Operation::kCallPal && in.pal_function == CALL_PAL_SWPCTX;
    return swpctx ? TransferKind::kSwitch : TransferKind::kPlain;
  }
  // A call writes its return address; bsr/jsr to $31 is a jump.
  if ((in.operation == Operation::kBsr || in.operation == Operation::kJsr) && in.ra != 31)
    return TransferKind::kCall;
  if (in.operation == Operation::kRet) return TransferKind::kReturn;
  if (in.operation == Operation::kJsrCoroutine) return TransferKind::kCoroutine;
  if (in.operation == Operation::kBr && in.ra == 31) return TransferKind::kJump;
  return TransferKind::kPlain;
}

inline uint64_t jump_target(uint64_t pc, uint32_t word) {
  return pc + 4 + static_cast<uint64_t>(isa::decode(word).displacement);
}

// Whether a `br` target is where a local call enters a procedure: just past
// the `ldah gp,X(t12); lda gp,Y(gp)` an Alpha procedure that uses gp starts
// with (the caller shares its gp, so bsr and a tail call's br skip them:
// lz_decode's `br decode_buffer+8`, lua's `br unroll+8`). A branch inside a
// procedure does not land there (GCC's code never branches back to just
// past the gp set-up without calling); a procedure without gp set-up is
// not recognised, and its tail calls stay its caller's context.
inline bool is_tail_call_target(uint32_t two_before, uint32_t one_before) {
  auto is = [](uint32_t word, isa::Operation operation, uint8_t ra, uint8_t rb) {
    const isa::Instruction in = isa::decode(word);
    return in.operation == operation && in.ra == ra && in.rb == rb;
  };
  constexpr uint8_t kGp = 29, kPv = 27;
  return is(two_before, isa::Operation::kLdah, kGp, kPv) &&
         is(one_before, isa::Operation::kLda, kGp, kGp);
}

// The same, reading the two words before `target` with the plugin's
// `read(address, word)` (false when unreadable: no tail call).
template <typename ReadWord>
bool lands_on_tail_call_target(uint64_t target, ReadWord read) {
  uint32_t two_before = 0, one_before = 0;
  return read(target - 8, two_before) && read(target - 4, one_before) &&
         is_tail_call_target(two_before, one_before);
}

}  // namespace dcpi::contexts
