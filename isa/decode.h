// Decoding a 32-bit Alpha instruction word. Header-only and freestanding so
// the guest (value-sampling interpreter) and the host (disassembler, stall
// analysis) share one decoder.
#pragma once
#include <cstddef>
#include <cstdint>

#include "isa/instruction.h"

namespace dcpi::isa {

namespace detail {

// Bit (trap * 4 + rounding) set for every qualifier combination that exists.
constexpr uint32_t qualifier_mask(Qualifiers q) {
  switch (q) {
    case Qualifiers::kExact:
      return 1u << 0;  // trap 0, rounding /c: the function field is exactly `function`
    case Qualifiers::kIeee:
    case Qualifiers::kIeeeToInteger:
      return 0xf0f000ffu;  // traps none, /u, /su, /sui x roundings /c /m normal /d
    case Qualifiers::kIeeeCompare:
      return (1u << 2) | (1u << 22);  // normal, /su
    case Qualifiers::kIntegerToIeee:
      return 0xf000000fu;  // none, /sui x all roundings
    case Qualifiers::kCvtst:
      return (1u << 10) | (1u << 26);  // trap field 2 and 6 (/s), normal rounding
    case Qualifiers::kVax:
    case Qualifiers::kVaxToInteger:
      return 0x00550055u;  // none, /u, /s, /su x /c, normal
    case Qualifiers::kVaxCompare:
      return (1u << 2) | (1u << 18);  // normal, /s
    case Qualifiers::kIntegerToVax:
      return 0x5u;  // /c, normal
  }
  return 0;
}

constexpr int32_t sign_extend(uint32_t value, unsigned bits) {
  const uint32_t sign = 1u << (bits - 1);
  value &= (sign << 1) - 1;
  return static_cast<int32_t>(value ^ sign) - static_cast<int32_t>(sign);
}

constexpr bool is_reserved_pal_opcode(unsigned opcode) {
  return opcode == 0x19 || opcode == 0x1b || opcode == 0x1d || opcode == 0x1e || opcode == 0x1f;
}

// Field constraints of each shape beyond the opcode/function match, as bits
// per operation (DecodeTables::field_rules) so that decode tests fields only
// for the operations that have a constraint (most have none).
enum FieldRule : uint8_t {
  kRaIsR31 = 1,
  kRbIsR31 = 2,
  kNoLiteral = 4,
  kLiteralOne = 8,       // implver: the literal form with literal 1
  kSameFpcrFields = 16,  // mt_fpcr/mf_fpcr: Fa = Fb = Fc
  kFpFunctionHigh = 32,  // ftoit/ftois on 0x1c: bits 15:12 (past the 7-bit function) are 0
};

constexpr uint8_t field_rules(Shape shape) {
  switch (shape) {
    case Shape::kOperateRegisterOnly:
      return kNoLiteral;
    case Shape::kOperateUnary:
      return kRaIsR31;
    case Shape::kOperateUnaryRegisterOnly:
      return kRaIsR31 | kNoLiteral;
    case Shape::kImplver:
      return kRaIsR31 | kLiteralOne;
    case Shape::kFpUnary:
      return kRaIsR31;
    case Shape::kIntToFp:
    case Shape::kHwMfpr:
      return kRbIsR31;
    case Shape::kFpToInt:
      return kRbIsR31 | kFpFunctionHigh;
    case Shape::kFpcr:
      return kSameFpcrFields;
    case Shape::kMiscRb:
    case Shape::kHwMtpr:
    case Shape::kHwJump:
    case Shape::kHwReturn:
      return kRaIsR31;
    default:
      return 0;
  }
}

// True when the fields of `in` meet `rules` (FieldRule bits of its operation).
constexpr bool fields_allowed(const Instruction& in, unsigned rules) {
  if ((rules & kRaIsR31) && in.ra != 31) return false;
  if ((rules & kRbIsR31) && in.rb != 31) return false;
  if ((rules & kNoLiteral) && in.has_literal) return false;
  if ((rules & kLiteralOne) && !(in.has_literal && in.literal == 1)) return false;
  if ((rules & kSameFpcrFields) && !(in.ra == in.rb && in.rb == in.rc)) return false;
  if ((rules & kFpFunctionHigh) && ((in.word >> 12) & 0xf) != 0) return false;
  return true;
}

}  // namespace detail

constexpr Format format_of_opcode(unsigned opcode, DecodeMode mode) {
  if (opcode == 0x00) return Format::kPal;
  if (opcode >= 0x08 && opcode <= 0x0f) return Format::kMemory;
  if (opcode >= 0x20 && opcode <= 0x2f) return Format::kMemory;
  if (opcode >= 0x30) return Format::kBranch;
  if ((opcode >= 0x10 && opcode <= 0x13) || opcode == 0x1c) return Format::kOperate;
  if (opcode >= 0x14 && opcode <= 0x17) return Format::kFpOperate;
  if (opcode == 0x18) return Format::kMemoryFunction;
  if (opcode == 0x1a) return Format::kJump;
  if (detail::is_reserved_pal_opcode(opcode)) {
    return mode == DecodeMode::kPalcode ? Format::kHardware : Format::kPalReserved;
  }
  return Format::kInvalid;  // opcodes 0x01-0x07
}

namespace detail {

// The format and operation of every encoding, looked up rather than searched
// for: the value sampler's interpreter calls decode at IPL 6 once per
// interpreted instruction, and scanning the op_list.h rows of the opcode (up
// to 26, the FP ones with a qualifier mask test each) cost ~118 guest
// instructions per word. Built at compile time (constant data, nothing to
// initialise: the guest kernel is freestanding and has no constructors),
// 18.1 KB, 16 KB of it the FP tables.
//
// Each operation table is indexed by the bits decode already extracts for
// the format; an entry is the first op_list.h row the scan would have
// matched, so row order still decides ties.
struct DecodeTables {
  Format format[2][64];       // [mode == kPalcode][opcode]: format_of_opcode
  Operation single[64];       // memory and branch formats: the opcode alone decides
  Operation operate[5][128];  // 0x10-0x13, 0x1c (by opcode & 7) x 7-bit function
  Operation fp[4][2048];      // 0x14-0x17 (by opcode & 3) x 11-bit function; on 0x14-0x16
                              // bits 10:6 are the trap/rounding qualifiers
  Operation misc[64];         // 0x18 by function bits 15:10 (bits 9:0 are 0 in every row)
  Operation jump[4];          // 0x1a by bits 15:14
  Operation hardware[8][16];  // PALmode 0x19/0x1b/0x1d/0x1e/0x1f (by opcode & 7) x type field
  uint8_t field_rules[kOperationCount];  // FieldRule bits: fields_allowed by operation
  bool complete;                         // every row is reachable where decode looks for it
};

consteval DecodeTables build_decode_tables() {
  DecodeTables t{};
  // Every entry starts undefined (constant evaluation allows no pointer
  // walks across the rows of a 2-D array: fill row by row).
  auto fill = [](auto& table) {
    for (Operation& entry : table) entry = Operation::kInvalid;
  };
  fill(t.single);
  for (auto& row : t.operate) fill(row);
  for (auto& row : t.fp) fill(row);
  fill(t.misc);
  fill(t.jump);
  for (auto& row : t.hardware) fill(row);
  for (unsigned opcode = 0; opcode < 64; ++opcode) {
    t.format[0][opcode] = format_of_opcode(opcode, DecodeMode::kUser);
    t.format[1][opcode] = format_of_opcode(opcode, DecodeMode::kPalcode);
  }
  t.complete = true;
  // The scan took the first matching row: an entry keeps the earliest row.
  auto claim = [](Operation& entry, size_t row) {
    if (entry == Operation::kInvalid) entry = static_cast<Operation>(row);
  };
  for (size_t row = 0; row < kOperationCount; ++row) {
    const OpInfo& op = kOperations[row];
    const unsigned f = op.function;
    t.field_rules[row] = field_rules(op.shape);
    // Only operate-format rows have a literal, or bits 15:12 past their function.
    if ((t.field_rules[row] & (kNoLiteral | kLiteralOne | kFpFunctionHigh)) &&
        format_of_opcode(op.opcode, DecodeMode::kUser) != Format::kOperate) {
      t.complete = false;
    }
    switch (format_of_opcode(op.opcode, DecodeMode::kPalcode)) {
      case Format::kPal:
        // decode gives call_pal without a lookup.
        if (static_cast<Operation>(row) != Operation::kCallPal) t.complete = false;
        break;
      case Format::kMemory:
      case Format::kBranch:
        if (f != 0) t.complete = false;
        claim(t.single[op.opcode], row);
        break;
      case Format::kOperate:
        if (f >= 128) t.complete = false;
        claim(t.operate[op.opcode & 7][f & 127], row);
        break;
      case Format::kFpOperate:
        if (op.opcode == 0x17) {
          if (f >= 2048) t.complete = false;
          claim(t.fp[3][f & 2047], row);
        } else {
          // Index (trap << 8 | rounding << 6 | function) = (qualifier bit << 6 | function).
          if (f >= 64) t.complete = false;
          const uint32_t qualifiers = qualifier_mask(op.qualifiers);
          for (unsigned q = 0; q < 32; ++q) {
            if (qualifiers & (1u << q)) claim(t.fp[op.opcode & 3][q << 6 | (f & 63)], row);
          }
        }
        break;
      case Format::kMemoryFunction:
        if ((f & 0x3ff) != 0) t.complete = false;
        claim(t.misc[f >> 10], row);
        break;
      case Format::kJump:
        if (f >= 4) t.complete = false;
        claim(t.jump[f & 3], row);
        break;
      case Format::kHardware: {
        // hw_mfpr/hw_mtpr: no type field; hw_jmp...: 3 bits; hw_ld/hw_st: 4.
        const unsigned types = op.opcode == 0x19 || op.opcode == 0x1d ? 1
                               : op.opcode == 0x1e                    ? 8
                                                                      : 16;
        if (f >= types) t.complete = false;
        claim(t.hardware[op.opcode & 7][f & 15], row);
        break;
      }
      case Format::kInvalid:
      case Format::kPalReserved:
        t.complete = false;
        break;
    }
  }
  return t;
}
inline constexpr DecodeTables kDecodeTables = build_decode_tables();
static_assert(kDecodeTables.complete,
              "op_list.h: a row's function does not fit the decode table of its format");

}  // namespace detail

// Decodes one instruction word. Never fails: undefined encodings come back
// with operation kInvalid (objdump's ".long"), and in DecodeMode::kUser the
// PAL-reserved opcodes with kPalReserved.
//
// Always inlined: the value sampler's interp::step (IPL 6, once per
// interpreted instruction) then keeps the fields it uses in registers
// instead of receiving a 32-byte Instruction through memory from an
// out-of-line call, about 25 guest instructions less per instruction.
[[gnu::always_inline]] constexpr Instruction decode(uint32_t word,
                                                    DecodeMode mode = DecodeMode::kUser) {
  const detail::DecodeTables& tables = detail::kDecodeTables;
  Instruction in;
  in.word = word;
  in.opcode = static_cast<uint8_t>(word >> 26);
  in.ra = (word >> 21) & 31;
  in.rb = (word >> 16) & 31;
  in.rc = word & 31;
  in.format = tables.format[mode == DecodeMode::kPalcode][in.opcode];

  Operation op = Operation::kInvalid;
  switch (in.format) {
    case Format::kInvalid:
      return in;
    case Format::kPal:
      in.pal_function = word & 0x3ffffff;
      op = Operation::kCallPal;
      break;
    case Format::kPalReserved:
      in.pal_function = word & 0x3ffffff;
      in.operation = Operation::kPalReserved;
      return in;
    case Format::kMemory:
      in.displacement = detail::sign_extend(word, 16);
      op = tables.single[in.opcode];
      break;
    case Format::kBranch:
      in.displacement = detail::sign_extend(word, 21) * 4;
      op = tables.single[in.opcode];
      break;
    case Format::kOperate:
      in.has_literal = (word >> 12) & 1;
      in.literal = (word >> 13) & 0xff;
      in.function = (word >> 5) & 0x7f;
      op = tables.operate[in.opcode & 7][in.function];
      break;
    case Format::kFpOperate:
      in.function = (word >> 5) & 0x7ff;
      if (in.opcode != 0x17) {
        in.fp_trap = static_cast<uint8_t>(in.function >> 8);
        in.fp_rounding = (in.function >> 6) & 3;
      }
      op = tables.fp[in.opcode & 3][in.function];
      break;
    case Format::kMemoryFunction:
      in.function = word & 0xffff;
      op = (word & 0x3ff) != 0 ? Operation::kInvalid : tables.misc[in.function >> 10];
      break;
    case Format::kJump:
      in.function = (word >> 14) & 3;
      in.hint = word & 0x3fff;
      in.displacement = detail::sign_extend(word, 14) * 4;
      op = tables.jump[in.function];
      break;
    case Format::kHardware:
      in.pal_function = word & 0x3ffffff;
      if (in.opcode == 0x19 || in.opcode == 0x1d) {
        in.pal_function = word & 0xffff;  // processor register index
        in.function = 0;
      } else if (in.opcode == 0x1e) {
        in.function = (word >> 13) & 7;
        in.displacement = detail::sign_extend(word, 13) * 4;
      } else {
        in.function = (word >> 12) & 0xf;
        in.displacement = detail::sign_extend(word, 12);
      }
      op = tables.hardware[in.opcode & 7][in.function];
      if (op == Operation::kInvalid ||
          !detail::fields_allowed(in, tables.field_rules[static_cast<size_t>(op)])) {
        // objdump falls back to the reserved-opcode spelling.
        in.pal_function = word & 0x3ffffff;
        in.operation = Operation::kPalReserved;
        return in;
      }
      break;
    default:
      __builtin_unreachable();  // the format table holds Format values only
  }
  if (op == Operation::kInvalid) {
    in.format = Format::kInvalid;
    return in;
  }
  const unsigned rules = tables.field_rules[static_cast<size_t>(op)];
  if (rules != 0 && !detail::fields_allowed(in, rules)) {
    in.format = Format::kInvalid;
    return in;
  }
  in.operation = op;
  return in;
}

// Target of a PC-relative branch (branch format) or of a jump's hint
// (jmp/jsr, hw_jmp/hw_jsr): the address of the next instruction plus the
// displacement.
constexpr uint64_t branch_target(const Instruction& in, uint64_t pc) {
  return pc + 4 + static_cast<uint64_t>(static_cast<int64_t>(in.displacement));
}

// True for instructions whose branch_target() is where control goes (branch
// format); jump hints are only predictions.
constexpr bool has_direct_target(const Instruction& in) {
  return in.valid() && in.format == Format::kBranch;
}

}  // namespace dcpi::isa
