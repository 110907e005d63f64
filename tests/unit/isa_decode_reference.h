// The decoder as it was before decode.h became table-driven: for each word,
// a linear scan over the op_list.h rows of its opcode comparing function
// fields and FP qualifier masks. Kept verbatim (names aside) as the oracle of
// isa_decode_test.cpp, which requires decode() to agree with it on every
// field for every word in both decode modes. New op_list.h rows reach both
// through kOperations; a new Qualifiers value or a deliberate change to what
// decode does with the fields must be made in both.
#pragma once
#include <cstddef>
#include <cstdint>

#include "isa/instruction.h"

namespace dcpi::isa::reference {

// Rows of one opcode are contiguous in op_list.h; index them by opcode so a
// decode scans only its opcode's rows (at most 26).
struct OpcodeRows {
  uint16_t begin = 0;
  uint16_t end = 0;
};

consteval auto build_opcode_index() {
  struct Index {
    OpcodeRows rows[64];
    bool contiguous;
  } index{};
  index.contiguous = true;
  for (size_t i = 0; i < kOperationCount; ++i) {
    OpcodeRows& r = index.rows[kOperations[i].opcode];
    if (r.begin == r.end) {
      r.begin = static_cast<uint16_t>(i);
    } else if (r.end != i) {
      index.contiguous = false;
    }
    r.end = static_cast<uint16_t>(i + 1);
  }
  return index;
}
inline constexpr auto kOpcodeIndex = build_opcode_index();
static_assert(kOpcodeIndex.contiguous, "op_list.h: keep the rows of one opcode together");

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

// Field constraints of each shape beyond the opcode/function match.
constexpr bool fields_allowed(const Instruction& in, Shape shape) {
  switch (shape) {
    case Shape::kOperateRegisterOnly:
      return !in.has_literal;
    case Shape::kOperateUnary:
      return in.ra == 31;
    case Shape::kOperateUnaryRegisterOnly:
      return in.ra == 31 && !in.has_literal;
    case Shape::kImplver:
      return in.ra == 31 && in.has_literal && in.literal == 1;
    case Shape::kFpUnary:
      return in.ra == 31;
    case Shape::kIntToFp:
    case Shape::kFpToInt:
    case Shape::kHwMfpr:
      return in.rb == 31;
    case Shape::kFpcr:
      return in.ra == in.rb && in.rb == in.rc;
    case Shape::kMiscRb:
    case Shape::kHwMtpr:
    case Shape::kHwJump:
    case Shape::kHwReturn:
      return in.ra == 31;
    default:
      return true;
  }
}

// Finds the row of `opcode` whose function matches; FP rows also check the
// qualifier combination.
constexpr Operation find_operation(unsigned opcode, uint32_t function, bool fp_qualified,
                                   unsigned qualifier_bit) {
  const OpcodeRows rows = kOpcodeIndex.rows[opcode];
  for (unsigned i = rows.begin; i < rows.end; ++i) {
    const OpInfo& op = kOperations[i];
    if (op.function != function) continue;
    if (fp_qualified && (qualifier_mask(op.qualifiers) & (1u << qualifier_bit)) == 0) continue;
    return static_cast<Operation>(i);
  }
  return Operation::kInvalid;
}

constexpr Format format_of_opcode_reference(unsigned opcode, DecodeMode mode) {
  if (opcode == 0x00) return Format::kPal;
  if (opcode >= 0x08 && opcode <= 0x0f) return Format::kMemory;
  if (opcode >= 0x20 && opcode <= 0x2f) return Format::kMemory;
  if (opcode >= 0x30) return Format::kBranch;
  if ((opcode >= 0x10 && opcode <= 0x13) || opcode == 0x1c) return Format::kOperate;
  if (opcode >= 0x14 && opcode <= 0x17) return Format::kFpOperate;
  if (opcode == 0x18) return Format::kMemoryFunction;
  if (opcode == 0x1a) return Format::kJump;
  if (is_reserved_pal_opcode(opcode)) {
    return mode == DecodeMode::kPalcode ? Format::kHardware : Format::kPalReserved;
  }
  return Format::kInvalid;  // opcodes 0x01-0x07
}

// Decodes one instruction word. Never fails: undefined encodings come back
// with operation kInvalid (objdump's ".long"), and in DecodeMode::kUser the
// PAL-reserved opcodes with kPalReserved.
constexpr Instruction decode_reference(uint32_t word, DecodeMode mode = DecodeMode::kUser) {
  Instruction in;
  in.word = word;
  in.opcode = static_cast<uint8_t>(word >> 26);
  in.ra = (word >> 21) & 31;
  in.rb = (word >> 16) & 31;
  in.rc = word & 31;
  in.format = format_of_opcode_reference(in.opcode, mode);

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
      in.displacement = sign_extend(word, 16);
      op = find_operation(in.opcode, 0, false, 0);
      break;
    case Format::kBranch:
      in.displacement = sign_extend(word, 21) * 4;
      op = find_operation(in.opcode, 0, false, 0);
      break;
    case Format::kOperate:
      in.has_literal = (word >> 12) & 1;
      in.literal = (word >> 13) & 0xff;
      in.function = (word >> 5) & 0x7f;
      op = find_operation(in.opcode, in.function, false, 0);
      // ftoit/ftois on opcode 0x1c are FP-format: bits 15:12 are part of
      // their 11-bit function and must be zero.
      if (op != Operation::kInvalid &&
          kOperations[static_cast<size_t>(op)].shape == Shape::kFpToInt &&
          ((word >> 12) & 0xf) != 0) {
        op = Operation::kInvalid;
      }
      break;
    case Format::kFpOperate:
      in.function = (word >> 5) & 0x7ff;
      if (in.opcode == 0x17) {
        op = find_operation(in.opcode, in.function, false, 0);
      } else {
        in.fp_trap = static_cast<uint8_t>(in.function >> 8);
        in.fp_rounding = (in.function >> 6) & 3;
        op = find_operation(in.opcode, in.function & 0x3f, true, in.fp_trap * 4u + in.fp_rounding);
      }
      break;
    case Format::kMemoryFunction:
      in.function = word & 0xffff;
      op = find_operation(in.opcode, in.function, false, 0);
      break;
    case Format::kJump:
      in.function = (word >> 14) & 3;
      in.hint = word & 0x3fff;
      in.displacement = sign_extend(word, 14) * 4;
      op = find_operation(in.opcode, in.function, false, 0);
      break;
    case Format::kHardware:
      in.pal_function = word & 0x3ffffff;
      if (in.opcode == 0x19 || in.opcode == 0x1d) {
        in.pal_function = word & 0xffff;  // processor register index
        in.function = 0;
      } else if (in.opcode == 0x1e) {
        in.function = (word >> 13) & 7;
        in.displacement = sign_extend(word, 13) * 4;
      } else {
        in.function = (word >> 12) & 0xf;
        in.displacement = sign_extend(word, 12);
      }
      op = find_operation(in.opcode, in.function, false, 0);
      if (op == Operation::kInvalid ||
          !fields_allowed(in, kOperations[static_cast<size_t>(op)].shape)) {
        // objdump falls back to the reserved-opcode spelling.
        in.pal_function = word & 0x3ffffff;
        in.operation = Operation::kPalReserved;
        return in;
      }
      break;
  }
  if (op != Operation::kInvalid &&
      !fields_allowed(in, kOperations[static_cast<size_t>(op)].shape)) {
    op = Operation::kInvalid;
  }
  in.operation = op;
  if (op == Operation::kInvalid) in.format = Format::kInvalid;
  return in;
}

}  // namespace dcpi::isa::reference
