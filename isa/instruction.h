// The decoded form of one Alpha instruction word and the per-operation facts
// (OpInfo) that op_list.h describes. Freestanding: guest and host.
#pragma once
#include <cstddef>
#include <cstdint>

#include "isa/op_list.h"

namespace dcpi::isa {

// Instruction formats of the Alpha Architecture Handbook, plus the 21264
// PALmode (hw_*) formats and the reserved PAL opcodes outside PALcode.
enum class Format : uint8_t {
  kInvalid,         // undefined opcode or function
  kPal,             // CALL_PAL: 26-bit function
  kMemory,          // Ra, disp16(Rb)
  kMemoryFunction,  // opcode 0x18: 16-bit function in the displacement field
  kJump,            // opcode 0x1a: Ra, (Rb), hint
  kBranch,          // Ra, disp21
  kOperate,         // Ra, Rb or 8-bit literal, Rc
  kFpOperate,       // Fa, Fb, 11-bit function, Fc
  kPalReserved,     // opcodes 0x19/0x1b/0x1d/0x1e/0x1f outside DecodeMode::kPalcode
  kHardware,        // 21264 hw_mfpr/hw_mtpr/hw_ld/hw_st/hw_jmp (PALmode only)
};

// How the operand fields are used: validity constraints (fields that must be
// R31) and the printed operand list both follow from it.
enum class Shape : uint8_t {
  kPal,                       // call_pal function
  kMemory,                    // Ra, disp(Rb)
  kMemoryFp,                  // Fa, disp(Rb)
  kBranch,                    // Ra, target
  kBranchFp,                  // Fa, target
  kOperate,                   // Ra, Rb|#lit, Rc
  kOperateRegisterOnly,       // Ra, Rb, Rc (no literal form)
  kOperateUnary,              // Ra = R31; Rb|#lit, Rc
  kOperateUnaryRegisterOnly,  // Ra = R31; Rb, Rc (no literal form)
  kImplver,                   // Ra = R31, literal 1; Rc
  kFpOperate,                 // Fa, Fb, Fc
  kFpUnary,                   // Fa = F31; Fb, Fc
  kIntToFp,                   // Ra, Rb = 31, Fc
  kFpToInt,                   // Fa, Rb = 31, Rc
  kFpcr,                      // Fa = Fb = Fc
  kMiscNone,                  // no operands (Ra, Rb ignored)
  kMiscRb,                    // Ra = R31; (Rb)
  kMiscRa,                    // Ra, Rb ignored
  kMiscRpcc,                  // Ra [, Rb]
  kJump,                      // Ra, (Rb), hint as a target address
  kReturn,                    // Ra, (Rb), hint as a number
  kHwMfpr,                    // Ra, index (Rb = 31)
  kHwMtpr,                    // Rb, index (Ra = 31)
  kHwMemory,                  // Ra, disp12(Rb)
  kHwJump,                    // (Rb), hint as a target address (Ra = 31)
  kHwReturn,                  // (Rb) (Ra = 31)
};

// What an instruction does, coarsely: the class the analysis tools group by.
enum class Kind : uint8_t {
  kInvalid,
  kIntegerArithmetic,
  kIntegerCompare,
  kIntegerLogical,
  kIntegerShift,  // shifts, byte extract/insert/mask, zap, sign extension
  kIntegerConditionalMove,
  kIntegerMultiply,
  kCount,       // CIX ctpop/ctlz/cttz
  kMultimedia,  // MVI
  kLoadAddress,
  kLoad,
  kLoadLocked,
  kStore,
  kStoreConditional,
  kConditionalBranch,
  kBranch,            // br
  kBranchSubroutine,  // bsr
  kJump,              // jmp, hw_jmp
  kJumpSubroutine,    // jsr, hw_jsr
  kReturn,            // ret, hw_ret
  kCoroutine,         // jsr_coroutine, hw_jcr
  kFpArithmetic,
  kFpMultiply,
  kFpDivide,
  kFpSquareRoot,
  kFpCompare,
  kFpConvert,
  kFpCopySign,
  kFpConditionalMove,
  kFpControl,  // mt_fpcr, mf_fpcr
  kIntegerToFp,
  kFpToInteger,
  kCallPal,
  kBarrier,   // trapb, excb, mb, wmb
  kPrefetch,  // fetch, fetch_m, ecb, wh64, wh64en
  kCycleCounter,
  kInterruptFlag,  // rc, rs
  kPalRegister,    // hw_mfpr, hw_mtpr
  kPalReserved,
};

// EV5 (21164) scheduling classes, after GCC's alpha.md "type" attribute and
// ev5.md; pipes and latencies are in isa/ev5.h.
enum class Ev5Class : uint8_t {
  kNone,
  kIld,
  kFld,
  kIst,
  kFst,
  kLdL,
  kStC,
  kMb,
  kIbr,
  kFbr,
  kJsr,
  kCallPal,
  kIadd,
  kIlog,
  kIcmp,
  kShift,
  kIcmov,
  kMvi,
  kImull,
  kImulq,
  kImulh,
  kFadd,
  kFmul,
  kFcpys,
  kFcmov,
  kFdivS,
  kFdivT,
  kFsqrtS,
  kFsqrtT,
  kItof,
  kFtoi,
  kMisc,
};

// Which trap/rounding qualifier combinations an FP operation has; bit
// (trap * 4 + rounding) of the mask in decode.h. kExact: the function is
// matched exactly.
enum class Qualifiers : uint8_t {
  kExact,
  kIeee,           // /c /m /d, /u, /su, /sui and their combinations
  kIeeeCompare,    // plain and /su
  kIeeeToInteger,  // like kIeee, spelled with v: /v /sv /svi
  kIntegerToIeee,  // plain and /sui, all roundings
  kCvtst,          // cvtst, cvtst/s
  kVax,            // /c, /u, /s, /su and /uc /sc /suc
  kVaxCompare,     // plain and /s
  kVaxToInteger,   // like kVax, spelled with v
  kIntegerToVax,   // plain and /c
};

// Architecture extension an operation belongs to (AMASK bits; kPal: 21264
// PALmode only).
enum class Extension : uint8_t { kBase, kBwx, kCix, kFix, kMvi, kPal };

enum class Operation : uint16_t {
#define DCPI_ISA_ENUM(id, name, opc, fn, shape, kind, ev5, bytes, quals, ext) k##id,
  DCPI_ISA_OPERATIONS(DCPI_ISA_ENUM)
#undef DCPI_ISA_ENUM
      kCount,
  kInvalid = kCount,  // undefined encoding (objdump prints ".long")
  kPalReserved,       // opcode 0x19/0x1b/0x1d/0x1e/0x1f outside PALcode ("pal19 ...")
};
inline constexpr size_t kOperationCount = static_cast<size_t>(Operation::kCount);

struct OpInfo {
  const char* mnemonic;
  uint8_t opcode;
  uint16_t function;
  Shape shape;
  Kind kind;
  Ev5Class ev5;
  uint8_t memory_bytes;
  Qualifiers qualifiers;
  Extension extension;
};

inline constexpr OpInfo kOperations[kOperationCount] = {
#define DCPI_ISA_ROW(id, name, opc, fn, shape, kind, ev5, bytes, quals, ext)                  \
  {name,          opc, fn, Shape::shape, Kind::kind, Ev5Class::ev5, bytes, Qualifiers::quals, \
   Extension::ext},
    DCPI_ISA_OPERATIONS(DCPI_ISA_ROW)
#undef DCPI_ISA_ROW
};

// Which instruction set a word is decoded against. objdump decodes the hw_*
// instructions only when told the machine is an EV6 (-m alpha:ev6); without
// that it prints the PAL-reserved opcodes as "pal19 0x...".
enum class DecodeMode : uint8_t {
  kUser,     // ordinary code: kernel and user images
  kPalcode,  // PALcode images: the 21264 hw_* encodings as GNU as -m21264 emits them
};

// FP qualifier fields (bits 15:13 trap mode, 12:11 rounding mode).
enum class FpRounding : uint8_t { kChopped = 0, kMinusInfinity = 1, kNormal = 2, kDynamic = 3 };

struct Instruction {
  uint32_t word = 0;
  Operation operation = Operation::kInvalid;
  Format format = Format::kInvalid;
  uint8_t opcode = 0;
  uint8_t ra = 31, rb = 31, rc = 31;  // raw fields (Fa/Fb/Fc for FP operations)
  bool has_literal = false;           // operate format: Rb replaced by an 8-bit literal
  uint8_t literal = 0;
  uint8_t fp_trap = 0;        // FP opcodes 0x14-0x16: qualifier bits 15:13
  uint8_t fp_rounding = 2;    // FP opcodes 0x14-0x16: bits 12:11 (FpRounding)
  uint16_t function = 0;      // the format's function field (operate 7, FP 11, misc 16 bits,
                              // jump 2, hw_ld/hw_st 4, hw_jmp 3)
  uint32_t pal_function = 0;  // CALL_PAL and reserved PAL opcodes: bits 25:0; hw_m[ft]pr index
  // Signed byte offset: memory displacement; branch displacement (target =
  // pc + 4 + displacement); jmp/jsr and hw_jmp/hw_jsr hint offset likewise.
  // For ret/jsr_coroutine the raw 14-bit hint is in `function`'s place: hint.
  int32_t displacement = 0;
  uint16_t hint = 0;  // ret/jsr_coroutine: the unsigned 14-bit hint field

  constexpr bool valid() const { return operation < Operation::kCount; }
  constexpr const OpInfo& info() const { return kOperations[static_cast<size_t>(operation)]; }
  constexpr Kind kind() const {
    return valid() ? info().kind
                   : (operation == Operation::kPalReserved ? Kind::kPalReserved : Kind::kInvalid);
  }
  constexpr Shape shape() const { return info().shape; }
  constexpr bool is(Operation op) const { return operation == op; }
};

}  // namespace dcpi::isa
