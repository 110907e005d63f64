// kernel/soft_float.h (the guest kernel's completion of denormal-operand FP
// operations) against the host's IEEE arithmetic: the same bits and the
// same exception flags in every rounding mode, for operands drawn to hit
// denormals, zeros, infinities, NaNs, overflow and underflow.
#include "kernel/soft_float.h"

#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstring>
#include <random>

namespace {

using kernel::soft_float::Op;
using kernel::soft_float::Rounding;
namespace sf = kernel::soft_float;

uint64_t bits_of(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
double double_of(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

uint64_t operand(std::mt19937_64& rng) {
  const uint64_t r = rng(), sign_and_fraction = r & 0x800fffffffffffffull;
  switch (rng() % 7) {
    case 0:
    case 1:
      return sign_and_fraction;  // denormal (or zero)
    case 2:
      return sign_and_fraction | (rng() % 3 + 1) << 52;  // just above
    case 3:
      return sign_and_fraction | (0x7fd + rng() % 2) << 52;  // near overflow
    case 4:
      return sign_and_fraction | (0x3ff + rng() % 80 - 40) << 52;
    case 5: {
      static const uint64_t special[] = {0,
                                         1ull << 63,
                                         0x7ff0000000000000ull,
                                         0xfff0000000000000ull,
                                         0x7ff8000000000000ull,
                                         1,
                                         0x8000000000000001ull,
                                         0x000fffffffffffffull};
      return special[rng() % 8];
    }
    default:
      return r;
  }
}

TEST(SoftFloat, MatchesTheHostInEveryRoundingMode) {
  const int host_modes[4] = {FE_TOWARDZERO, FE_DOWNWARD, FE_TONEAREST, FE_UPWARD};
  std::mt19937_64 rng(20261129);
  int mismatches = 0;
  for (int i = 0; i < 400000; ++i) {
    const uint64_t a = operand(rng), b = operand(rng);
    const int mode = static_cast<int>(rng() % 4);
    const auto op = static_cast<Op>(rng() % 5);
    std::fesetround(host_modes[mode]);
    std::feclearexcept(FE_ALL_EXCEPT);
    volatile double x = double_of(a), y = double_of(b);
    double r = 0;
    switch (op) {
      case Op::kAdd:
        r = x + y;
        break;
      case Op::kSub:
        r = x - y;
        break;
      case Op::kMul:
        r = x * y;
        break;
      case Op::kDiv:
        r = x / y;
        break;
      case Op::kSqrt:
        r = std::sqrt(y);
        break;
    }
    const int raised = std::fetestexcept(FE_ALL_EXCEPT);
    std::fesetround(FE_TONEAREST);
    const sf::Result got = sf::compute(op, a, b, static_cast<Rounding>(mode));
    const uint64_t flags =
        (raised & FE_INVALID ? sf::kInvalid : 0) | (raised & FE_DIVBYZERO ? sf::kDivZero : 0) |
        (raised & FE_OVERFLOW ? sf::kOverflow : 0) | (raised & FE_UNDERFLOW ? sf::kUnderflow : 0) |
        (raised & FE_INEXACT ? sf::kInexact : 0);
    // NaNs: any NaN (the host's default NaN's sign is its own).
    const bool same_value =
        std::isnan(r) ? std::isnan(double_of(got.bits)) : bits_of(r) == got.bits;
    if ((!same_value || flags != got.exceptions) && ++mismatches <= 5)
      ADD_FAILURE() << "op " << static_cast<int>(op) << " mode " << mode << " a " << std::hex << a
                    << " b " << b << ": want " << bits_of(r) << "/" << flags << ", got " << got.bits
                    << "/" << got.exceptions;
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(SoftFloat, DenormalExamples) {
  const uint64_t tiny = bits_of(1e-310);
  EXPECT_EQ(sf::compute(Op::kAdd, tiny, tiny, Rounding::kNearest).bits, bits_of(2e-310));
  EXPECT_EQ(sf::compute(Op::kMul, tiny, bits_of(1e300), Rounding::kNearest).bits,
            bits_of(1e-310 * 1e300));
  const sf::Result under = sf::compute(Op::kMul, tiny, tiny, Rounding::kNearest);
  EXPECT_EQ(under.bits, 0u);
  EXPECT_EQ(under.exceptions, sf::kUnderflow | sf::kInexact);
  EXPECT_EQ(sf::compute(Op::kSub, tiny, tiny, Rounding::kMinus).bits, 1ull << 63);  // -0
  EXPECT_EQ(sf::compute(Op::kSqrt, 0, tiny, Rounding::kNearest).bits, bits_of(std::sqrt(1e-310)));
}

}  // namespace
