// decode() against the linear-scan decoder it replaced (isa_decode_reference.h):
// every field of the decoded Instruction must agree, in both decode modes, on
// every opcode x every value of the low 16 bits (every function and qualifier
// field, the low bits of displacements and hints) x a grid of Ra/Rb values, and on
// random words. IsaDecodeTable.DISABLED_AllWords covers all 2^32 words; run it
// with --gtest_also_run_disabled_tests after changing decode.h or op_list.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "isa/decode.h"
#include "isa_decode_reference.h"

namespace dcpi::isa {
namespace {

bool same(const Instruction& a, const Instruction& b) {
  return a.word == b.word && a.operation == b.operation && a.format == b.format &&
         a.opcode == b.opcode && a.ra == b.ra && a.rb == b.rb && a.rc == b.rc &&
         a.has_literal == b.has_literal && a.literal == b.literal && a.fp_trap == b.fp_trap &&
         a.fp_rounding == b.fp_rounding && a.function == b.function &&
         a.pal_function == b.pal_function && a.displacement == b.displacement && a.hint == b.hint;
}

std::string describe(const Instruction& in) {
  char text[256];
  std::snprintf(text, sizeof text,
                "op %u format %u opcode %#x ra %u rb %u rc %u lit %d/%u trap %u round %u "
                "function %#x pal %#x disp %d hint %#x",
                static_cast<unsigned>(in.operation), static_cast<unsigned>(in.format), in.opcode,
                in.ra, in.rb, in.rc, in.has_literal, in.literal, in.fp_trap, in.fp_rounding,
                in.function, in.pal_function, in.displacement, in.hint);
  return text;
}

// Counts the words on which decode and decode_reference differ; reports the
// first few.
class Checker {
 public:
  void check(uint32_t word) {
    for (DecodeMode mode : {DecodeMode::kUser, DecodeMode::kPalcode}) {
      const Instruction got = decode(word, mode);
      const Instruction want = reference::decode_reference(word, mode);
      if (same(got, want)) continue;
      if (++mismatches_ <= 10) {
        ADD_FAILURE() << std::hex << "word 0x" << word
                      << (mode == DecodeMode::kPalcode ? " (PALcode)" : " (user)")
                      << "\n  decode:    " << describe(got) << "\n  reference: " << describe(want);
      }
    }
    ++words_;
  }
  uint64_t mismatches() const { return mismatches_; }
  uint64_t words() const { return words_; }

 private:
  uint64_t mismatches_ = 0;
  uint64_t words_ = 0;
};

TEST(IsaDecodeTable, EveryOpcodeAndFunctionFieldOverARegisterGrid) {
  // Ra and Rb carry the must-be-R31 and Fa=Fb=Fc constraints (Rc is in the
  // swept low bits) and Rb the top of the operate literal.
  constexpr uint32_t kRegisters[] = {31, 0, 1, 30};
  Checker checker;
  for (uint32_t opcode = 0; opcode < 64; ++opcode) {
    for (uint32_t ra : kRegisters) {
      for (uint32_t rb : kRegisters) {
        const uint32_t high = opcode << 26 | ra << 21 | rb << 16;
        for (uint32_t low = 0; low < 0x10000; ++low) checker.check(high | low);
      }
    }
  }
  EXPECT_EQ(checker.words(), 64u * 16 * 0x10000);
  EXPECT_EQ(checker.mismatches(), 0u);
}

TEST(IsaDecodeTable, RandomWords) {
  std::mt19937 random(20240611);
  Checker checker;
  for (int i = 0; i < 4'000'000; ++i) checker.check(static_cast<uint32_t>(random()));
  EXPECT_EQ(checker.mismatches(), 0u);
}

TEST(IsaDecodeTable, KnownEncodings) {
  EXPECT_EQ(decode(0x40220401).operation, Operation::kAddq);
  EXPECT_EQ(decode(0x58000000u | (0x7a0u << 5) | (1 << 21) | (2 << 16) | 3).operation,
            Operation::kAddt);  // addt/sui: the qualifiers are part of the table index
  EXPECT_EQ(decode(0x5be0a5e3u).operation, Operation::kCvttq);  // cvttq/svc
  // cvtst/s shares cvtts' function 0x2c; only the qualifier bits tell them apart.
  constexpr uint32_t kCvtFb1Fc3 = 0x16u << 26 | 31u << 21 | 1u << 16 | 3;
  EXPECT_EQ(decode(kCvtFb1Fc3 | (0x6acu << 5)).operation, Operation::kCvtst);  // /s, normal
  EXPECT_EQ(decode(kCvtFb1Fc3 | (0x0acu << 5)).operation, Operation::kCvtts);
  EXPECT_EQ(decode(0x63ff4000).operation, Operation::kMb);  // misc: function >> 10
  EXPECT_FALSE(decode(0x63ff4001).valid());                 // misc function bits 9:0 set
  EXPECT_EQ(decode(0x6bfa8001).operation, Operation::kRet);
  EXPECT_EQ(decode(0x643f00f9, DecodeMode::kPalcode).operation, Operation::kHwMfpr);
  EXPECT_EQ(decode(0x643f00f9).operation, Operation::kPalReserved);
}

// All 2^32 words in both modes, split over the host's threads (a few minutes).
TEST(IsaDecodeTable, DISABLED_AllWords) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<uint64_t> mismatches{0}, words{0};
  std::atomic<uint32_t> next_block{0};
  constexpr uint32_t kBlocks = 1u << 12;  // of 2^20 words each
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      uint64_t bad = 0, done = 0;
      for (uint32_t block; (block = next_block++) < kBlocks;) {
        for (uint32_t low = 0; low < (1u << 20); ++low) {
          const uint32_t word = block << 20 | low;
          for (DecodeMode mode : {DecodeMode::kUser, DecodeMode::kPalcode}) {
            if (!same(decode(word, mode), reference::decode_reference(word, mode))) {
              if (++bad <= 3)
                std::fprintf(stderr, "mismatch: word 0x%08x mode %d\n", word,
                             static_cast<int>(mode));
            }
          }
          ++done;
        }
      }
      mismatches += bad;
      words += done;
    });
  }
  for (std::thread& worker : workers) worker.join();
  EXPECT_EQ(words.load(), uint64_t{1} << 32);
  EXPECT_EQ(mismatches.load(), 0u);
}

}  // namespace
}  // namespace dcpi::isa
