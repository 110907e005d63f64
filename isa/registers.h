// Alpha register names as objdump prints them, and register sets as bit masks.
// Shared by guest and host (freestanding: no libc).
#pragma once
#include <cstdint>

namespace dcpi::isa {

inline constexpr unsigned kZeroRegister = 31;  // R31 and F31 read as zero, writes vanish

// OSF/1 software names, the ones objdump uses for integer registers.
inline constexpr const char* kIntegerRegisterNames[32] = {
    "v0", "t0", "t1",  "t2",  "t3", "t4",  "t5", "t6", "t7", "s0",  "s1",
    "s2", "s3", "s4",  "s5",  "fp", "a0",  "a1", "a2", "a3", "a4",  "a5",
    "t8", "t9", "t10", "t11", "ra", "t12", "at", "gp", "sp", "zero"};

// objdump prints FP registers with a dollar sign: $f0 .. $f31.
inline constexpr const char* kFpRegisterNames[32] = {
    "$f0",  "$f1",  "$f2",  "$f3",  "$f4",  "$f5",  "$f6",  "$f7",  "$f8",  "$f9",  "$f10",
    "$f11", "$f12", "$f13", "$f14", "$f15", "$f16", "$f17", "$f18", "$f19", "$f20", "$f21",
    "$f22", "$f23", "$f24", "$f25", "$f26", "$f27", "$f28", "$f29", "$f30", "$f31"};

// One architectural register: integer R0-R31 or FP F0-F31. R31 and F31 read
// as zero and discard writes, so they never create a dependency.
struct Register {
  uint8_t number = kZeroRegister;
  bool floating = false;

  constexpr bool is_zero() const { return number == kZeroRegister; }
  constexpr bool operator==(const Register&) const = default;
};
static_assert(sizeof(Register) == 2);

constexpr Register int_register(uint8_t number) { return Register{number, false}; }
constexpr Register fp_register(uint8_t number) { return Register{number, true}; }

// A set of integer and FP registers, bit n = Rn / Fn. R31 and F31 are never
// members: they carry no dependency.
struct RegisterSet {
  uint32_t integer = 0;
  uint32_t fp = 0;

  constexpr void add_integer(unsigned r) {
    if (r != kZeroRegister) integer |= 1u << r;
  }
  constexpr void add_fp(unsigned f) {
    if (f != kZeroRegister) fp |= 1u << f;
  }
  constexpr bool empty() const { return integer == 0 && fp == 0; }
  constexpr bool intersects(const RegisterSet& other) const {
    return (integer & other.integer) != 0 || (fp & other.fp) != 0;
  }
  constexpr bool operator==(const RegisterSet&) const = default;
};
static_assert(sizeof(RegisterSet) == 8);

}  // namespace dcpi::isa
