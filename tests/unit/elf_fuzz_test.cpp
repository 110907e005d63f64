// ElfSymbols must survive damaged files: every truncated or bit-flipped copy
// of a real ELF either opens or fails with ElfError — never a crash or a
// different exception.
#include <gtest/gtest.h>

#include <random>

#include "symbols/elf_symbols.h"
#include "test_support.h"

namespace dcpi {
namespace {

// Opens the damaged file and exercises every lookup on success.
void open_damaged(const std::string& path) {
  try {
    const ElfSymbols symbols = ElfSymbols::open(path);
    for (const ElfSymbol& function : symbols.functions())
      (void)symbols.function_containing(function.address + function.size / 2);
    (void)symbols.find("dcpi_transfer_ring");
    (void)symbols.function_containing(0);
    (void)symbols.function_containing(~uint64_t{0});
  } catch (const ElfError&) {
    // a clean, reported failure is fine
  }
}

std::vector<uint8_t> flip_bits(std::vector<uint8_t> bytes, std::mt19937& random, int flips,
                               size_t limit) {
  std::uniform_int_distribution<size_t> position(0, std::min(limit, bytes.size()) - 1);
  std::uniform_int_distribution<int> bit(0, 7);
  for (int i = 0; i < flips; ++i)
    bytes[position(random)] ^= static_cast<uint8_t>(1u << bit(random));
  return bytes;
}

void fuzz(const std::vector<uint8_t>& original, int rounds, uint32_t seed) {
  ASSERT_GT(original.size(), 64u);
  testing::TempDir dir;
  const std::string path = dir.file("damaged.elf");
  std::mt19937 random(seed);
  std::uniform_int_distribution<size_t> cut(0, original.size());
  for (int round = 0; round < rounds; ++round) {
    std::vector<uint8_t> truncated(original.begin(),
                                   original.begin() + static_cast<long>(cut(random)));
    testing::write_file(path, truncated);
    ASSERT_NO_FATAL_FAILURE(open_damaged(path)) << "truncated, round " << round;
    // Headers and tables sit at both ends: flip anywhere, and often in the first 4 KB.
    const size_t limit = round % 2 ? original.size() : 4096;
    testing::write_file(path, flip_bits(original, random, 1 + round % 8, limit));
    ASSERT_NO_FATAL_FAILURE(open_damaged(path)) << "bit-flipped, round " << round;
  }
}

TEST(ElfFuzz, DamagedCopiesOfAlphaKernelFixture) {
  const std::string fixture = testing::fixture_path("fake_kernel.elf");
  if (fixture.empty()) GTEST_SKIP() << "no Alpha binutils";
  fuzz(testing::read_file(fixture), 400, 1);
}

// This binary is ~90 MB with its DWARF, and every damaged copy is written
// and parsed whole: 10 rounds (20 copies) keep it inside the 60 s limit on a
// loaded two-core machine (20 rounds took 44 s there, with the binary at
// 88 MB; the small Alpha fixture above takes the many rounds).
TEST(ElfFuzz, DamagedCopiesOfThisTestBinary) { fuzz(testing::read_file("/proc/self/exe"), 10, 2); }

TEST(ElfFuzz, EveryPrefixOfTheHeaderRegion) {
  const std::string fixture = testing::fixture_path("fake_kernel.elf");
  const std::vector<uint8_t> original =
      testing::read_file(fixture.empty() ? "/proc/self/exe" : fixture);
  testing::TempDir dir;
  for (size_t length = 0; length <= std::min<size_t>(original.size(), 600); ++length) {
    testing::write_file(dir.file("prefix.elf"),
                        {original.begin(), original.begin() + static_cast<long>(length)});
    open_damaged(dir.file("prefix.elf"));
  }
}

}  // namespace
}  // namespace dcpi
