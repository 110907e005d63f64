// ElfImage reads DWARF line tables with libdw: damaged copies of an ELF with
// debug info must open or fail with ElfError, never crash; whatever opens
// must answer every lookup. (The same style as elf_fuzz_test.cpp for libelf.)
#include <gtest/gtest.h>

#include <random>

#include "symbols/elf_image.h"
#include "test_support.h"

namespace dcpi {
namespace {

uint64_t exercise(const std::string& path) {
  uint64_t answers = 0;
  try {
    const ElfImage image = ElfImage::open(path);
    for (uint64_t address = 0x120000000; address < 0x120000100; address += 4) {
      answers += image.source_at(address).has_value();
      if (auto procedure = image.procedure_at(address)) {
        answers += image.procedure_end(*procedure) >= procedure->start;
        (void)image.procedure_named(procedure->name);
      }
      answers += image.instruction_at(address).has_value();
    }
    (void)image.source_at(0);
    (void)image.source_at(~uint64_t{0});
    (void)image.instruction_at(~uint64_t{0} - 1);
  } catch (const ElfError&) {  // a reported failure is fine
  }
  return answers;
}

TEST(DwarfFuzz, DamagedCopiesOfTheDwarfFixture) {
  const std::string fixture = testing::fixture_path("dwarf_workload.elf");
  if (fixture.empty()) GTEST_SKIP() << "no Alpha cross compiler";
  const std::vector<uint8_t> original = testing::read_file(fixture);
  ASSERT_GT(exercise(fixture), 100u);  // the intact file answers (sanity of the harness)
  testing::TempDir dir;
  const std::string path = dir.file("damaged.elf");
  std::mt19937 random(7);
  std::uniform_int_distribution<size_t> cut(0, original.size());
  std::uniform_int_distribution<size_t> position(0, original.size() - 1);
  std::uniform_int_distribution<int> bit(0, 7);
  for (int round = 0; round < 300; ++round) {
    testing::write_file(path,
                        {original.begin(), original.begin() + static_cast<long>(cut(random))});
    exercise(path);
    std::vector<uint8_t> flipped = original;
    for (int i = 0; i < 1 + round % 6; ++i)
      flipped[position(random)] ^= static_cast<uint8_t>(1u << bit(random));
    testing::write_file(path, flipped);
    exercise(path);
  }
}

}  // namespace
}  // namespace dcpi
