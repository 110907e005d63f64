// What an instruction does to the calling context (seed 002 §3): a user call
// (bsr/jsr writing a link register), return, jsr_coroutine, or the kernel's
// thread switch (CALL_PAL swpctx). Shared by both plugins that build trees.
#pragma once
#include <cstdint>

#include "firmware/pal_abi.h"
#include "isa/decode.h"

namespace dcpi::contexts {

enum class TransferKind : uint8_t { kPlain, kCall, kReturn, kCoroutine, kSwitch };

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
  return TransferKind::kPlain;
}

}  // namespace dcpi::contexts
