// Registers an instruction reads and writes and the memory it touches: the
// dependencies the stall analysis and the interpreter need. R31/F31 never
// appear (they are constant zero). Freestanding.
#pragma once
#include <cstdint>

#include "isa/decode.h"
#include "isa/registers.h"

namespace dcpi::isa {

enum class MemoryDirection : uint8_t { kNone, kLoad, kStore };

struct MemoryAccess {
  uint8_t bytes = 0;  // 1, 2, 4 or 8; 0 when the instruction does not access data memory
  MemoryDirection direction = MemoryDirection::kNone;
  bool locked = false;    // ldx_l / stx_c (and their hw_ forms)
  bool aligned = true;    // false for ldq_u/stq_u, which ignore the low three address bits
  bool physical = false;  // hw_ld/hw_st with /p
};

struct Operands {
  RegisterSet read;
  RegisterSet written;
  MemoryAccess memory;
};

constexpr Operands operands(const Instruction& in) {
  Operands o;
  if (!in.valid()) return o;
  const OpInfo& op = in.info();
  const Kind kind = op.kind;
  switch (op.shape) {
    case Shape::kPal:
    case Shape::kMiscNone:
    case Shape::kImplver:
      break;  // CALL_PAL effects depend on the PALcode; see README
    case Shape::kMemory:
    case Shape::kHwMemory:
      o.read.add_integer(in.rb);
      if (kind == Kind::kStore || kind == Kind::kStoreConditional) {
        o.read.add_integer(in.ra);
        if (kind == Kind::kStoreConditional) o.written.add_integer(in.ra);  // success flag
      } else {
        o.written.add_integer(in.ra);
      }
      break;
    case Shape::kMemoryFp:
      o.read.add_integer(in.rb);
      if (kind == Kind::kStore) {
        o.read.add_fp(in.ra);
      } else {
        o.written.add_fp(in.ra);
      }
      break;
    case Shape::kBranch:
      if (kind == Kind::kConditionalBranch) {
        o.read.add_integer(in.ra);
      } else {
        o.written.add_integer(in.ra);  // br/bsr: return address
      }
      break;
    case Shape::kBranchFp:
      o.read.add_fp(in.ra);
      break;
    case Shape::kOperate:
    case Shape::kOperateRegisterOnly:
    case Shape::kOperateUnary:
    case Shape::kOperateUnaryRegisterOnly:
      o.read.add_integer(in.ra);
      if (!in.has_literal) o.read.add_integer(in.rb);
      // A conditional move leaves Rc unchanged when the test fails.
      if (kind == Kind::kIntegerConditionalMove) o.read.add_integer(in.rc);
      o.written.add_integer(in.rc);
      break;
    case Shape::kFpOperate:
    case Shape::kFpUnary:
      o.read.add_fp(in.ra);
      o.read.add_fp(in.rb);
      if (kind == Kind::kFpConditionalMove) o.read.add_fp(in.rc);
      o.written.add_fp(in.rc);
      break;
    case Shape::kIntToFp:
      o.read.add_integer(in.ra);
      o.written.add_fp(in.rc);
      break;
    case Shape::kFpToInt:
      o.read.add_fp(in.ra);
      o.written.add_integer(in.rc);
      break;
    case Shape::kFpcr:
      if (in.operation == Operation::kMtFpcr) {
        o.read.add_fp(in.ra);
      } else {
        o.written.add_fp(in.ra);
      }
      break;
    case Shape::kMiscRb:
    case Shape::kHwMtpr:
      o.read.add_integer(in.rb);
      break;
    case Shape::kMiscRa:
    case Shape::kMiscRpcc:
    case Shape::kHwMfpr:
      o.written.add_integer(in.ra);
      break;
    case Shape::kJump:
    case Shape::kReturn:
      o.read.add_integer(in.rb);
      o.written.add_integer(in.ra);
      break;
    case Shape::kHwJump:
    case Shape::kHwReturn:
      o.read.add_integer(in.rb);
      break;
  }
  if (op.memory_bytes != 0) {
    o.memory.bytes = op.memory_bytes;
    o.memory.direction = (kind == Kind::kStore || kind == Kind::kStoreConditional)
                             ? MemoryDirection::kStore
                             : MemoryDirection::kLoad;
    o.memory.locked = kind == Kind::kLoadLocked || kind == Kind::kStoreConditional;
    o.memory.aligned = in.operation != Operation::kLdqU && in.operation != Operation::kStqU;
    o.memory.physical = op.shape == Shape::kHwMemory && (in.function & 0xc) == 0;  // the /p forms
  }
  return o;
}

// Which of the Ra/Fa and Rb/Fb fields an operation reads as operands (a
// literal counts as Rb): what value sampling calls "the instruction's
// operands" (seed 001 §2.4). A load's Ra is its destination and a branch's
// Rb bits are displacement, so neither is an operand; fields that must be
// R31 (unary forms) are not read either.
inline constexpr uint8_t kReadsA = 1, kReadsB = 2;
constexpr uint8_t fields_read(const OpInfo& op) {
  const bool store = op.kind == Kind::kStore || op.kind == Kind::kStoreConditional;
  switch (op.shape) {
    case Shape::kMemory:
    case Shape::kMemoryFp:
    case Shape::kHwMemory:
      return static_cast<uint8_t>(kReadsB | (store ? kReadsA : 0));
    case Shape::kBranch:
      return op.kind == Kind::kConditionalBranch ? kReadsA : 0;
    case Shape::kBranchFp:
    case Shape::kIntToFp:
    case Shape::kFpToInt:
      return kReadsA;
    case Shape::kOperate:
    case Shape::kOperateRegisterOnly:
    case Shape::kFpOperate:
      return kReadsA | kReadsB;
    case Shape::kOperateUnary:
    case Shape::kOperateUnaryRegisterOnly:
    case Shape::kFpUnary:
    case Shape::kMiscRb:
    case Shape::kHwMtpr:
    case Shape::kJump:
    case Shape::kReturn:
    case Shape::kHwJump:
    case Shape::kHwReturn:
      return kReadsB;
    case Shape::kFpcr:
      return op.function == kOperations[static_cast<size_t>(Operation::kMtFpcr)].function ? kReadsA
                                                                                          : 0;
    default:  // call_pal, implver, rpcc, rc/rs, mf_fpcr, hw_mfpr: no register operands
      return 0;
  }
}

namespace detail {
consteval auto build_fields_read() {
  struct Table {
    uint8_t reads[kOperationCount];
  } table{};
  for (size_t i = 0; i < kOperationCount; ++i) table.reads[i] = fields_read(kOperations[i]);
  return table;
}
inline constexpr auto kFieldsRead = build_fields_read();
}  // namespace detail

constexpr uint8_t fields_read(Operation operation) {
  return static_cast<size_t>(operation) < kOperationCount
             ? detail::kFieldsRead.reads[static_cast<size_t>(operation)]
             : 0;
}

// Where control can go after this instruction, for CFG building.
enum class ControlFlow : uint8_t {
  kFallThrough,        // ordinary instruction
  kConditionalBranch,  // branch_target() or fall through
  kBranch,             // br: always branch_target()
  kCall,               // bsr (direct) or jsr (indirect): returns to the next instruction
  kJump,               // jmp: indirect, never falls through
  kReturn,             // ret, hw_ret
  kCoroutine,          // jsr_coroutine, hw_jcr
  kCallPal,            // traps into PALcode; usually returns to the next instruction
  kStop,               // invalid encoding: decoding should not continue past it
};

constexpr ControlFlow control_flow(const Instruction& in) {
  switch (in.kind()) {
    case Kind::kConditionalBranch:
      return ControlFlow::kConditionalBranch;
    case Kind::kBranch:
      return ControlFlow::kBranch;
    case Kind::kBranchSubroutine:
    case Kind::kJumpSubroutine:
      return ControlFlow::kCall;
    case Kind::kJump:
      return ControlFlow::kJump;
    case Kind::kReturn:
      return ControlFlow::kReturn;
    case Kind::kCoroutine:
      return ControlFlow::kCoroutine;
    case Kind::kCallPal:
      return ControlFlow::kCallPal;
    case Kind::kInvalid:
    case Kind::kPalReserved:
      return ControlFlow::kStop;
    default:
      return ControlFlow::kFallThrough;
  }
}

}  // namespace dcpi::isa
