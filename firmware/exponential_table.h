// ProfileMe's sampling intervals drawn with one table look-up (issue 27:
// a record no dearer than a cycle sample). The intervals must stay
// memoryless (firmware/park_miller.h exponential_interval: every fetched
// instruction, the handler's own return included, is then equally likely to
// be tagged; seed 004 §5.1), but −ln u at every interrupt took ~175 of a
// record's ~990 cycles on the ev5 model. Here the software precomputes,
// once per mean, the exponential's 2^kExpTableBits quantile bins; a draw
// takes a bin from the generator value's top bits and a point uniform in it
// from the rest, one multiply. Within a bin the density is constant (the
// exponential's mass over the bin's width), so near 0, where the re-arming
// handler's instructions sit, an instruction is tagged with probability
// 1/mean · (1 − 1/2^(kExpTableBits+1)). The last bin (E > ln 2^kExpTableBits)
// is open-ended: being memoryless, E given E > b is b + a fresh E, so its
// draw adds b and draws again. Shared by the guest driver (C++ and
// driver/fast_handler.S, which reads ExpBin) and host tests.
#pragma once
#include <cstdint>

#include "firmware/park_miller.h"

namespace dcpi {

inline constexpr uint32_t kExpTableBits = 8;
inline constexpr uint32_t kExpTableBins = 1u << kExpTableBits;
// The generator's 31 bits: kExpTableBits pick the bin, the rest the point.
inline constexpr uint32_t kExpFractionBits = 31 - kExpTableBits;
inline constexpr uint32_t kExpFractionMask = (1u << kExpFractionBits) - 1;
// Bases and widths carry 8 fraction bits: at a mean of 1,024 the first bin
// is 4 instructions wide, and whole numbers would skew its density.
inline constexpr uint32_t kExpFixedBits = 8;

// Bin i holds mean · E for E in [−ln(1 − i/N), −ln(1 − (i+1)/N)).
struct ExpBin {
  uint64_t base;   // its start, in 1/256 instructions
  uint64_t width;  // its width, likewise; 0 for the open last bin
};
static_assert(sizeof(ExpBin) == 16, "driver/fast_handler.S indexes bins by << 4");

struct ExpTable {
  ExpBin bins[kExpTableBins];
};

namespace exponential_table_detail {
// −ln(k / N) in Q32 for k in [1, N], computed by the compiler: the guest
// then builds a mean's table with 256 multiplies (its 512 logarithms took
// ~40,000 cycles at every configuration, ~10 a record on compress).
struct NegLogs {
  uint64_t q32[kExpTableBins + 1];
};
constexpr NegLogs make_neg_logs() {
  NegLogs logs{};
  for (uint32_t k = 1; k < kExpTableBins; ++k)
    logs.q32[k] = static_cast<uint64_t>(neg_log_q32(k << kExpFractionBits));
  logs.q32[kExpTableBins] = 0;  // −ln 1
  return logs;
}
inline constexpr NegLogs kNegLogs = make_neg_logs();

// mean · −ln(k / N) in 1/256 instructions, k in [1, N].
constexpr uint64_t scaled_neg_log(uint32_t mean, uint32_t k) {
  // q32 < 5.6 · 2^32 < 2^35, mean < 2^32: the product of mean and q32 >> 8
  // stays under 2^59.
  return (uint64_t{mean} * (kNegLogs.q32[k] >> 8)) >> (32 - 8 - kExpFixedBits);
}
}  // namespace exponential_table_detail

// The table of `mean` (≥ 1, fetched instructions).
constexpr void exp_table_fill(ExpTable& table, uint32_t mean) {
  using exponential_table_detail::scaled_neg_log;
  uint64_t start = 0;  // −ln 1
  for (uint32_t i = 0; i < kExpTableBins; ++i) {
    const uint64_t end =
        i + 1 < kExpTableBins ? scaled_neg_log(mean, kExpTableBins - i - 1) : start;
    table.bins[i] = ExpBin{start, end - start};
    start = end;
  }
}

// 1 + floor(mean · E), E exponential with mean 1, advancing `seed`
// (Park–Miller) once, or again for each time the open last bin comes up
// (probability 1/N each).
constexpr uint64_t exp_table_interval(const ExpTable& table, uint32_t& seed) {
  uint64_t carried = 0;
  for (;;) {
    seed = park_miller_next(seed);
    const uint32_t bin = seed >> kExpFractionBits;
    const ExpBin& b = table.bins[bin];
    if (bin == kExpTableBins - 1) {
      carried += b.base;
      continue;
    }
    const uint64_t point =
        carried + b.base + ((b.width * (seed & kExpFractionMask)) >> kExpFractionBits);
    return 1 + (point >> kExpFixedBits);
  }
}

}  // namespace dcpi
