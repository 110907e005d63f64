// Prints a decoded instruction the way `alpha-linux-gnu-objdump -d` does
// (binutils 2.40): mnemonic, a tab, operands; pseudo-instructions (nop, mov,
// clr, negq, fmov, br, ret, ...) where objdump uses them; branch targets as
// absolute hex addresses. Writes into a caller buffer: no libc, no heap, no
// division, so the guest can use it too.
#pragma once
#include <cstddef>
#include <cstdint>

#include "isa/decode.h"
#include "isa/pal_functions.h"
#include "isa/registers.h"

namespace dcpi::isa {

// Bounded text output; always NUL-terminated (when capacity > 0), silently
// truncated when full.
class TextBuffer {
 public:
  constexpr TextBuffer(char* data, size_t capacity) : data_(data), capacity_(capacity) {
    if (capacity_ > 0) data_[0] = '\0';
  }
  constexpr void put(char c) {
    if (length_ + 1 < capacity_) {
      data_[length_++] = c;
      data_[length_] = '\0';
    } else {
      truncated_ = true;
    }
  }
  constexpr void put(const char* s) {
    while (*s) put(*s++);
  }
  // Lower-case hex, at least `min_digits` digits, no prefix.
  constexpr void put_hex(uint64_t value, unsigned min_digits = 1) {
    unsigned digits = 1;
    while (digits < 16 && (value >> (4 * digits)) != 0) ++digits;
    if (digits < min_digits) digits = min_digits;
    for (unsigned i = digits; i-- > 0;) put("0123456789abcdef"[(value >> (4 * i)) & 0xf]);
  }
  // printf("%#x"): "0" for zero, else 0x-prefixed.
  constexpr void put_c_hex(uint64_t value) {
    if (value != 0) put("0x");
    put_hex(value);
  }
  // Signed decimal by repeated subtraction of powers of ten: the guest
  // kernel has no integer division routine.
  constexpr void put_decimal(int64_t value) {
    uint64_t magnitude = static_cast<uint64_t>(value);
    if (value < 0) {
      put('-');
      magnitude = ~magnitude + 1;
    }
    int i = 19;
    while (i > 0 && kPowersOfTen[i] > magnitude) --i;
    for (; i >= 0; --i) {
      char digit = '0';
      while (magnitude >= kPowersOfTen[i]) {
        magnitude -= kPowersOfTen[i];
        ++digit;
      }
      put(digit);
    }
  }
  constexpr size_t length() const { return length_; }
  constexpr bool truncated() const { return truncated_; }
  constexpr const char* c_str() const { return data_; }

 private:
  static constexpr uint64_t kPowersOfTen[20] = {1ull,
                                                10ull,
                                                100ull,
                                                1000ull,
                                                10000ull,
                                                100000ull,
                                                1000000ull,
                                                10000000ull,
                                                100000000ull,
                                                1000000000ull,
                                                10000000000ull,
                                                100000000000ull,
                                                1000000000000ull,
                                                10000000000000ull,
                                                100000000000000ull,
                                                1000000000000000ull,
                                                10000000000000000ull,
                                                100000000000000000ull,
                                                1000000000000000000ull,
                                                10000000000000000000ull};
  char* data_;
  size_t capacity_;
  size_t length_ = 0;
  bool truncated_ = false;
};

// How addresses (branch targets, jump hints) are printed. The default is
// objdump's own form without the symbol: hex, no 0x, no leading zeros. The
// host disassembler passes one that appends " <symbol+0xoff>".
struct AddressPrinter {
  void (*print)(void* context, uint64_t address, TextBuffer& out) = nullptr;
  void* context = nullptr;
};

namespace detail {

inline constexpr const char* kTrapQualifiers[8] = {"", "u", "", "", "s", "su", "s", "sui"};
inline constexpr const char* kTrapQualifiersToInteger[8] = {"", "v", "", "", "s", "sv", "s", "svi"};
inline constexpr const char* kRoundingQualifiers[4] = {"c", "m", "", "d"};

constexpr void put_fp_qualifiers(const Instruction& in, TextBuffer& out) {
  const Qualifiers q = in.info().qualifiers;
  if (q == Qualifiers::kExact) return;
  const bool to_integer = q == Qualifiers::kIeeeToInteger || q == Qualifiers::kVaxToInteger;
  const char* trap = (to_integer ? kTrapQualifiersToInteger : kTrapQualifiers)[in.fp_trap & 7];
  const char* rounding = kRoundingQualifiers[in.fp_rounding & 3];
  if (*trap == '\0' && *rounding == '\0') return;
  out.put('/');
  out.put(trap);
  out.put(rounding);
}

constexpr void put_address(uint64_t address, const AddressPrinter* printer, TextBuffer& out) {
  if (printer != nullptr && printer->print != nullptr) {
    printer->print(printer->context, address, out);
  } else {
    out.put_hex(address);
  }
}

constexpr const char* ireg(unsigned r) { return kIntegerRegisterNames[r & 31]; }
constexpr const char* freg(unsigned r) { return kFpRegisterNames[r & 31]; }

// "rb" or the literal, as the second operate operand.
constexpr void put_rb_or_literal(const Instruction& in, TextBuffer& out) {
  if (in.has_literal) {
    out.put_c_hex(in.literal);
  } else {
    out.put(ireg(in.rb));
  }
}

constexpr void put_memory_operand(int32_t displacement, unsigned rb, TextBuffer& out) {
  out.put_decimal(displacement);
  out.put('(');
  out.put(ireg(rb));
  out.put(')');
}

// Comma-separated operands: put_list(out, "t0", "t1") prints "t0,t1".
constexpr void put_list(TextBuffer& out, const char* a, const char* b) {
  out.put(a);
  out.put(',');
  out.put(b);
}
constexpr void put_list(TextBuffer& out, const char* a, const char* b, const char* c) {
  put_list(out, a, b);
  out.put(',');
  out.put(c);
}

// objdump's integer pseudo-instructions (sextl, negq, not, mov, nop, clr,
// unop, lda/ldah without a base): prints one and returns true when `in` is
// spelled as one.
constexpr bool put_integer_pseudo(const Instruction& in, TextBuffer& out) {
  const Operation op = in.operation;
  const bool za = in.ra == 31;
  switch (op) {
    case Operation::kAddl:
    case Operation::kSubl:
    case Operation::kSubq:
    case Operation::kSublV:
    case Operation::kSubqV:
    case Operation::kOrnot: {
      if (!za) return false;
      const char* name = op == Operation::kAddl    ? "sextl"
                         : op == Operation::kSubl  ? "negl"
                         : op == Operation::kSubq  ? "negq"
                         : op == Operation::kSublV ? "negl/v"
                         : op == Operation::kSubqV ? "negq/v"
                                                   : "not";
      out.put(name);
      out.put('\t');
      put_rb_or_literal(in, out);
      out.put(',');
      out.put(ireg(in.rc));
      return true;
    }
    case Operation::kBis:
      if (in.has_literal) {
        if (!za) return false;
        out.put("mov\t");
        out.put_c_hex(in.literal);
      } else if (za && in.rb == 31 && in.rc == 31) {
        out.put("nop\t");  // objdump's operand list is all implied: a bare tab
        return true;
      } else if (za && in.rb == 31) {
        out.put("clr\t");
        out.put(ireg(in.rc));
        return true;
      } else if (za || in.ra == in.rb) {
        out.put("mov\t");
        out.put(ireg(in.rb));
      } else {
        return false;
      }
      out.put(',');
      out.put(ireg(in.rc));
      return true;
    case Operation::kLda:
    case Operation::kLdah:
      if (in.rb != 31) return false;
      out.put(in.info().mnemonic);
      out.put('\t');
      out.put(ireg(in.ra));
      out.put(',');
      out.put_decimal(in.displacement);
      return true;
    case Operation::kLdqU:
      if (!za) return false;
      out.put("unop\t");
      return true;
    default:
      return false;
  }
}

// objdump's FP pseudo-instructions (negs/negt/negf/negg, fnop, fclr, fabs,
// fmov, fneg).
constexpr bool put_fp_pseudo(const Instruction& in, TextBuffer& out) {
  const Operation op = in.operation;
  const bool za = in.ra == 31;
  switch (op) {
    case Operation::kSubf:
    case Operation::kSubg:
    case Operation::kSubs:
    case Operation::kSubt: {
      if (!za || in.fp_rounding != static_cast<uint8_t>(FpRounding::kNormal)) return false;
      const bool vax = in.opcode == 0x15;
      const bool named =
          in.fp_trap == 0 || (vax ? in.fp_trap == 4 : (in.fp_trap == 5 || in.fp_trap == 7));
      if (!named) return false;
      out.put(op == Operation::kSubf   ? "negf"
              : op == Operation::kSubg ? "negg"
              : op == Operation::kSubs ? "negs"
                                       : "negt");
      put_fp_qualifiers(in, out);
      out.put('\t');
      put_list(out, freg(in.rb), freg(in.rc));
      return true;
    }
    case Operation::kCpys:
      if (za && in.rb == 31 && in.rc == 31) {
        out.put("fnop\t");
      } else if (za && in.rb == 31) {
        out.put("fclr\t");
        out.put(freg(in.rc));
      } else if (za || in.ra == in.rb) {
        out.put(za ? "fabs\t" : "fmov\t");
        put_list(out, freg(in.rb), freg(in.rc));
      } else {
        return false;
      }
      return true;
    case Operation::kCpysn:
      if (in.ra != in.rb) return false;
      out.put("fneg\t");
      put_list(out, freg(in.ra), freg(in.rc));
      return true;
    default:
      return false;
  }
}

// objdump's control pseudo-instructions (br without a link, jmp and ret
// without hints, rpcc without Rb) and the named CALL_PALs.
constexpr bool put_control_pseudo(const Instruction& in, uint64_t pc, const AddressPrinter* printer,
                                  TextBuffer& out) {
  const bool za = in.ra == 31;
  switch (in.operation) {
    case Operation::kBr:
      if (!za) return false;
      out.put("br\t");
      put_address(branch_target(in, pc), printer, out);
      return true;
    case Operation::kJmp:
      if (!za || in.hint != 0) return false;
      out.put("jmp\t(");
      out.put(ireg(in.rb));
      out.put(')');
      return true;
    case Operation::kRet:
      if (!za || in.rb != 26 || in.hint != 1) return false;
      out.put("ret");
      return true;
    case Operation::kRpcc:
      if (in.rb != 31) return false;
      out.put("rpcc\t");
      out.put(ireg(in.ra));
      return true;
    case Operation::kCallPal:
      if (const char* name = objdump_pal_name(in.pal_function)) {
        out.put(name);
        return true;
      }
      return false;
    default:
      return false;
  }
}

// objdump's pseudo-instructions: prints one and returns true when `in` is
// spelled as one.
constexpr bool put_pseudo(const Instruction& in, uint64_t pc, const AddressPrinter* printer,
                          TextBuffer& out) {
  return put_integer_pseudo(in, out) || put_fp_pseudo(in, out) ||
         put_control_pseudo(in, pc, printer, out);
}

// Operands of the register-to-register shapes (integer and FP operate,
// conversions between the register files, FPCR).
constexpr void put_operate_operands(const Instruction& in, TextBuffer& out) {
  switch (in.shape()) {
    case Shape::kOperate:
    case Shape::kOperateRegisterOnly:
      out.put(ireg(in.ra));
      out.put(',');
      [[fallthrough]];
    case Shape::kOperateUnary:
    case Shape::kOperateUnaryRegisterOnly:
      put_rb_or_literal(in, out);
      out.put(',');
      [[fallthrough]];
    case Shape::kImplver:
      out.put(ireg(in.rc));
      break;
    case Shape::kFpOperate:
      put_list(out, freg(in.ra), freg(in.rb), freg(in.rc));
      break;
    case Shape::kFpUnary:
      put_list(out, freg(in.rb), freg(in.rc));
      break;
    case Shape::kIntToFp:
      put_list(out, ireg(in.ra), freg(in.rc));
      break;
    case Shape::kFpToInt:
      put_list(out, freg(in.ra), ireg(in.rc));
      break;
    case Shape::kFpcr:
      out.put(freg(in.ra));
      break;
    default:
      break;
  }
}

constexpr void put_operands(const Instruction& in, uint64_t pc, const AddressPrinter* printer,
                            TextBuffer& out) {
  switch (in.shape()) {
    case Shape::kPal:
      out.put_c_hex(in.pal_function);
      break;
    case Shape::kMemory:
    case Shape::kHwMemory:
    case Shape::kMemoryFp:
      out.put(in.shape() == Shape::kMemoryFp ? freg(in.ra) : ireg(in.ra));
      out.put(',');
      put_memory_operand(in.displacement, in.rb, out);
      break;
    case Shape::kBranch:
    case Shape::kBranchFp:
      out.put(in.shape() == Shape::kBranch ? ireg(in.ra) : freg(in.ra));
      out.put(',');
      put_address(branch_target(in, pc), printer, out);
      break;
    case Shape::kMiscNone:
      break;
    case Shape::kMiscRb:
    case Shape::kHwReturn:
      out.put('(');
      out.put(ireg(in.rb));
      out.put(')');
      break;
    case Shape::kMiscRa:
      out.put(ireg(in.ra));
      break;
    case Shape::kMiscRpcc:
      put_list(out, ireg(in.ra), ireg(in.rb));
      break;
    case Shape::kJump:
    case Shape::kReturn:
      out.put(ireg(in.ra));
      out.put(",(");
      out.put(ireg(in.rb));
      out.put("),");
      if (in.shape() == Shape::kJump) {
        put_address(branch_target(in, pc), printer, out);
      } else {
        out.put_c_hex(in.hint);
      }
      break;
    case Shape::kHwMfpr:
    case Shape::kHwMtpr:
      out.put(ireg(in.shape() == Shape::kHwMfpr ? in.ra : in.rb));
      out.put(',');
      out.put_c_hex(in.pal_function);
      break;
    case Shape::kHwJump:
      out.put('(');
      out.put(ireg(in.rb));
      out.put("),");
      put_address(branch_target(in, pc), printer, out);
      break;
    default:
      put_operate_operands(in, out);
      break;
  }
}

}  // namespace detail

// Writes the instruction text ("addq\tt0,t1,t2") for the word at `pc` into
// `out`; returns the number of characters written.
constexpr size_t print_instruction(const Instruction& in, uint64_t pc, TextBuffer& out,
                                   const AddressPrinter* printer = nullptr) {
  const size_t start = out.length();
  if (in.operation == Operation::kInvalid) {
    out.put(".long 0x");
    out.put_hex(in.word, 6);  // printf("%#08x")
  } else if (in.operation == Operation::kPalReserved) {
    out.put("pal");
    out.put_hex(in.opcode, 2);
    out.put('\t');
    out.put_c_hex(in.pal_function);
  } else if (!detail::put_pseudo(in, pc, printer, out)) {
    out.put(in.info().mnemonic);
    detail::put_fp_qualifiers(in, out);
    if (in.shape() != Shape::kMiscNone) {
      out.put('\t');
      detail::put_operands(in, pc, printer, out);
    }
  }
  return out.length() - start;
}

constexpr size_t print_instruction(const Instruction& in, uint64_t pc, char* buffer,
                                   size_t capacity, const AddressPrinter* printer = nullptr) {
  TextBuffer out(buffer, capacity);
  return print_instruction(in, pc, out, printer);
}

// Decode and print in one step.
constexpr size_t disassemble(uint32_t word, uint64_t pc, char* buffer, size_t capacity,
                             DecodeMode mode = DecodeMode::kUser,
                             const AddressPrinter* printer = nullptr) {
  return print_instruction(decode(word, mode), pc, buffer, capacity, printer);
}

}  // namespace dcpi::isa
