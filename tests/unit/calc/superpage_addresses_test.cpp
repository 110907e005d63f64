// Which accesses of kernel code provably address the superpage (KSEG), which
// the 21164 maps without its TBs: dcpicalc then lists no DTB miss there
// (superpage_addresses.h).
#include "analysis/calc/estimate/superpage_addresses.h"

#include <gtest/gtest.h>

#include "analysis/calc/decode/isa_adapter.h"
#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/model/ev5_model.h"

namespace dcpi::calc {
namespace {

constexpr uint64_t kKernelText = 0xfffffc0000310000ull;
constexpr uint64_t kUserText = 0x120000000ull;
constexpr uint8_t kZero = 31, kT0 = 1, kT1 = 2, kA0 = 16, kA1 = 17, kRa = 26, kPv = 27, kGp = 29,
                  kSp = 30;

// Alpha Architecture Handbook formats.
constexpr uint32_t memory(uint32_t op, uint8_t ra, uint8_t rb, int16_t displacement) {
  return op << 26 | uint32_t{ra} << 21 | uint32_t{rb} << 16 | uint16_t(displacement);
}
constexpr uint32_t operate(uint32_t op, uint32_t fn, uint8_t ra, uint8_t rb, uint8_t rc) {
  return op << 26 | uint32_t{ra} << 21 | uint32_t{rb} << 16 | fn << 5 | rc;
}
constexpr uint32_t operate_literal(uint32_t op, uint32_t fn, uint8_t ra, uint8_t lit, uint8_t rc) {
  return op << 26 | uint32_t{ra} << 21 | uint32_t{lit} << 13 | 1u << 12 | fn << 5 | rc;
}
constexpr uint32_t branch(uint32_t op, uint8_t ra, int32_t words) {
  return op << 26 | uint32_t{ra} << 21 | (uint32_t(words) & 0x1fffff);
}
constexpr uint32_t lda(uint8_t ra, int16_t d, uint8_t rb) { return memory(0x08, ra, rb, d); }
constexpr uint32_t ldah(uint8_t ra, int16_t d, uint8_t rb) { return memory(0x09, ra, rb, d); }
constexpr uint32_t ldq(uint8_t ra, int16_t d, uint8_t rb) { return memory(0x29, ra, rb, d); }
constexpr uint32_t stq(uint8_t ra, int16_t d, uint8_t rb) { return memory(0x2d, ra, rb, d); }
constexpr uint32_t sll(uint8_t ra, uint8_t lit, uint8_t rc) {
  return operate_literal(0x12, 0x39, ra, lit, rc);
}
constexpr uint32_t bis(uint8_t ra, uint8_t rb, uint8_t rc) {
  return operate(0x11, 0x20, ra, rb, rc);
}
constexpr uint32_t subq1(uint8_t ra, uint8_t rc) { return operate_literal(0x10, 0x29, ra, 1, rc); }
constexpr uint32_t bne(uint8_t ra, int32_t words) { return branch(0x3d, ra, words); }
constexpr uint32_t jsr(uint8_t ra, uint8_t rb) { return memory(0x1a, ra, rb, 1 << 14); }
constexpr uint32_t kRet = 0x1au << 26 | 31u << 21 | uint32_t{kRa} << 16 | 2u << 14 | 1;

// The kernel's page zeroing: the page's superpage address built from the
// superpage's base and the physical address in a0, then a loop of stores.
const std::vector<uint32_t> kZeroPage = {
    lda(kT0, -1, kZero),  // 0: t0 = -1
    sll(kT0, 42, kT0),    // 1: t0 = 0xfffffc0000000000, the superpage's base
    bis(kT0, kA0, kT0),   // 2: t0 |= a0 (a physical address)
    stq(kZero, 0, kT0),   // 3: loop: stq zero,0(t0)
    lda(kT0, 64, kT0),    // 4: t0 += 64
    subq1(kA1, kA1),      // 5
    bne(kA1, -4),         // 6: to 3
    stq(kZero, 0, kA0),   // 7: through a0, a physical address (nonsense, but not provable)
    kRet,
};

// The flag of the instruction at word index `k`.
bool access_at(const std::vector<uint32_t>& words, uint64_t at, size_t k) {
  const std::vector<InstructionRecord> code = decode_records(words, at);
  const ControlFlowGraph cfg = build_cfg(code);
  const auto flags = superpage_accesses(cfg, Ev5Model().superpage());
  const BlockId b = cfg.block_at(at + 4 * k);
  return flags[b][(at + 4 * k - cfg.block(b).start) / 4];
}

TEST(SuperpageAddresses, APageZeroedThroughTheSuperpageBaseStaysThereAroundItsLoop) {
  EXPECT_TRUE(access_at(kZeroPage, kKernelText, 3)) << "stq zero,0(t0) in the loop";
  EXPECT_FALSE(access_at(kZeroPage, kKernelText, 7)) << "through a0: not known";
  EXPECT_FALSE(access_at(kZeroPage, kUserText, 3)) << "user code never addresses KSEG";
}

TEST(SuperpageAddresses, StackAndGlobalsAreThereButLoadedPointersAreNot) {
  const std::vector<uint32_t> words = {
      stq(kRa, 0, kSp),   // 0: the frame, on the kernel's stack
      ldq(kT0, 8, kGp),   // 1: a GOT entry, gp-relative
      ldq(kT1, 0, kT0),   // 2: through the loaded pointer: not provable
      jsr(kRa, kPv),      // 3: a call changes gp ...
      ldah(kGp, 1, kRa),  // 4: ... which is rebuilt from the return address
      lda(kGp, 16, kGp),  // 5
      ldq(kT0, 8, kGp),   // 6: gp-relative again
      ldq(kT1, 0, kA0),   // 7: a0 after the call: unknown
      kRet,
  };
  EXPECT_TRUE(access_at(words, kKernelText, 0));
  EXPECT_TRUE(access_at(words, kKernelText, 1));
  EXPECT_FALSE(access_at(words, kKernelText, 2));
  EXPECT_TRUE(access_at(words, kKernelText, 6));
  EXPECT_FALSE(access_at(words, kKernelText, 7));
  for (const size_t k : {size_t{0}, size_t{1}, size_t{6}})
    EXPECT_FALSE(access_at(words, kUserText, k)) << k;
}

TEST(SuperpageAddresses, APhysicalAddressTakenFromTheSuperpageIsNotInIt) {
  const std::vector<uint32_t> words = {
      lda(kT0, -1, kZero),                 // t0 = -1
      sll(kT0, 42, kT0),                   // the superpage's base
      operate(0x10, 0x29, kSp, kT0, kT1),  // subq sp, t0, t1: sp's physical address
      stq(kZero, 0, kT1),
      kRet,
  };
  EXPECT_FALSE(access_at(words, kKernelText, 3));
}

// dcpicalc: the zeroing store stalls; in kernel code its culprits have no
// DTB miss (nor does its fetch an ITB miss); the same code in a user image
// keeps both.
TEST(SuperpageAddresses, KernelStoresListNoDtbMissAndKernelCodeNoItbMiss) {
  const Ev5Model model;
  for (const uint64_t at : {kKernelText, kUserText}) {
    const std::vector<InstructionRecord> code = decode_records(kZeroPage, at);
    SamplesByAddress samples;
    for (size_t k = 0; k < kZeroPage.size(); ++k) samples[at + 4 * k] = k == 3 ? 40000 : 1000;
    const CulpritReport report =
        find_culprits(analyze_procedure(build_cfg(code), model, samples), model);
    const bool kernel = at == kKernelText;
    bool stall_found = false;
    for (const DynamicStall& stall : report.stalls) {
      if (stall.address != at + 12) continue;
      stall_found = true;
      bool dtb = false;
      for (const CulpritCandidate& c : stall.candidates) dtb |= c.cause == StallCause::kDtbMiss;
      EXPECT_NE(dtb, kernel) << std::hex << at;
    }
    EXPECT_TRUE(stall_found);
    if (!kernel) continue;
    for (const DynamicStall& stall : report.stalls) {
      for (const CulpritCandidate& c : stall.candidates) {
        EXPECT_NE(c.cause, StallCause::kItbMiss) << std::hex << stall.address;
      }
    }
  }
}

}  // namespace
}  // namespace dcpi::calc
