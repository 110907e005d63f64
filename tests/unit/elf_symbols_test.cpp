// ElfSymbols on this test binary (/proc/self/exe) and on Alpha fixtures.
#include "symbols/elf_symbols.h"

#include <gtest/gtest.h>

#include <regex>

#include "symbols/demangle.h"
#include "test_support.h"

// Known functions in this binary; noinline and extern "C" keep their names.
extern "C" __attribute__((noinline, used)) int dcpi_test_marker_alpha(int x) { return x * 3 + 1; }
extern "C" __attribute__((noinline, used)) int dcpi_test_marker_beta(int x) {
  return dcpi_test_marker_alpha(x) ^ 0x55;
}

namespace dcpi {
namespace {

using testing::fixture_path;

constexpr uint64_t kFixtureText = 0xfffffc0000310000ull;

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const ElfError& error) {
    return error.what();
  }
  return "no error";
}

TEST(ElfSymbols, FindsFunctionsOfThisTestBinary) {
  const ElfSymbols self = ElfSymbols::open("/proc/self/exe");
  const ElfSymbol& alpha = self.lookup("dcpi_test_marker_alpha");
  const ElfSymbol& beta = self.lookup("dcpi_test_marker_beta");
  EXPECT_TRUE(alpha.is_function);
  EXPECT_GT(alpha.size, 0u);
  // The binary may be position independent: compare distances, not addresses.
  const auto runtime_distance = reinterpret_cast<intptr_t>(&dcpi_test_marker_beta) -
                                reinterpret_cast<intptr_t>(&dcpi_test_marker_alpha);
  EXPECT_EQ(static_cast<intptr_t>(beta.address - alpha.address), runtime_distance);
}

TEST(ElfSymbols, AddressToContainingFunctionInThisTestBinary) {
  const ElfSymbols self = ElfSymbols::open("/proc/self/exe");
  const ElfSymbol& alpha = self.lookup("dcpi_test_marker_alpha");
  for (uint64_t offset : {uint64_t{0}, uint64_t{1}, alpha.size - 1}) {
    const ElfSymbol* found = self.function_containing(alpha.address + offset);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->name, "dcpi_test_marker_alpha");
  }
  const ElfSymbol* after = self.function_containing(alpha.address + alpha.size);
  EXPECT_TRUE(after == nullptr || after->name != "dcpi_test_marker_alpha");
}

TEST(ElfSymbols, FunctionsAreSortedByAddress) {
  const ElfSymbols self = ElfSymbols::open("/proc/self/exe");
  ASSERT_GT(self.functions().size(), 10u);
  for (size_t i = 1; i < self.functions().size(); ++i)
    ASSERT_LE(self.functions()[i - 1].address, self.functions()[i].address);
}

TEST(ElfSymbols, MissingSymbolErrorNamesSymbolAndFile) {
  const ElfSymbols self = ElfSymbols::open("/proc/self/exe");
  EXPECT_EQ(error_of([&] { self.lookup("no_such_symbol_here"); }),
            "symbol 'no_such_symbol_here' not found in /proc/self/exe");
  EXPECT_EQ(self.find("no_such_symbol_here"), nullptr);
}

TEST(ElfSymbols, MissingFileIsAClearError) {
  EXPECT_EQ(error_of([] { ElfSymbols::open("/nonexistent/kernel.elf"); }),
            "cannot open /nonexistent/kernel.elf: No such file or directory");
}

TEST(ElfSymbols, NonElfFileIsAClearError) {
  testing::TempDir dir;
  testing::write_file(dir.file("text"), {'h', 'e', 'l', 'l', 'o', '\n'});
  EXPECT_EQ(error_of([&] { ElfSymbols::open(dir.file("text")); }),
            dir.file("text") + " is not an ELF file");
  testing::write_file(dir.file("empty"), {});
  EXPECT_EQ(error_of([&] { ElfSymbols::open(dir.file("empty")); }),
            dir.file("empty") + " is not an ELF file");
}

TEST(ElfSymbols, DirectoryIsAClearError) {
  EXPECT_EQ(error_of([] { ElfSymbols::open("/tmp"); }), "/tmp is not a regular file");
}

TEST(ElfSymbols, ReadsBuildIdOfThisTestBinary) {
  const ElfSymbols self = ElfSymbols::open("/proc/self/exe");
  if (!self.build_id()) GTEST_SKIP() << "toolchain links without --build-id";
  EXPECT_TRUE(std::regex_match(*self.build_id(), std::regex("[0-9a-f]{16,}")));
}

class ElfSymbolsAlpha : public ::testing::Test {
 protected:
  void SetUp() override {
    if (fixture_path("fake_kernel.elf").empty()) GTEST_SKIP() << "no Alpha binutils";
    kernel_.emplace(ElfSymbols::open(fixture_path("fake_kernel.elf")));
  }
  std::optional<ElfSymbols> kernel_;
};

TEST_F(ElfSymbolsAlpha, NameToAddressAndSize) {
  EXPECT_EQ(kernel_->lookup("kernel_entry").address, kFixtureText);
  EXPECT_EQ(kernel_->lookup("kernel_entry").size, 16u);
  EXPECT_EQ(kernel_->lookup("idle_loop").address, kFixtureText + 16);
  const ElfSymbol& logs = kernel_->lookup("dcpi_transfer_ring");
  EXPECT_FALSE(logs.is_function);
  EXPECT_EQ(logs.size, 4u * 262208u);
  EXPECT_EQ(logs.address % 64, 0u);
}

TEST_F(ElfSymbolsAlpha, AddressToFunctionUsesSizes) {
  EXPECT_EQ(kernel_->function_containing(kFixtureText)->name, "kernel_entry");
  EXPECT_EQ(kernel_->function_containing(kFixtureText + 12)->name, "kernel_entry");
  EXPECT_EQ(kernel_->function_containing(kFixtureText + 16)->name, "idle_loop");
  EXPECT_EQ(kernel_->function_containing(kFixtureText + 24)->name, "idle_loop");
  // 20 bytes after idle_loop that no symbol covers.
  EXPECT_EQ(kernel_->function_containing(kFixtureText + 28), nullptr);
  EXPECT_EQ(kernel_->function_containing(kFixtureText + 44), nullptr);
}

TEST_F(ElfSymbolsAlpha, UnsizedFunctionIsNearestPreceding) {
  const uint64_t tail = kernel_->lookup("unsized_tail").address;
  EXPECT_EQ(kernel_->lookup("unsized_tail").size, 0u);
  EXPECT_EQ(kernel_->function_containing(tail)->name, "unsized_tail");
  EXPECT_EQ(kernel_->function_containing(tail + 12)->name, "unsized_tail");
}

TEST_F(ElfSymbolsAlpha, AddressesOutsideCodeHaveNoFunction) {
  EXPECT_EQ(kernel_->function_containing(kFixtureText - 4), nullptr);
  EXPECT_EQ(kernel_->function_containing(kernel_->lookup("unsized_tail").address + 16), nullptr);
  EXPECT_EQ(kernel_->function_containing(kernel_->lookup("dcpi_transfer_ring").address), nullptr);
  EXPECT_EQ(kernel_->function_containing(0x8000), nullptr);
}

TEST_F(ElfSymbolsAlpha, ReadsBuildId) {
  ASSERT_TRUE(kernel_->build_id().has_value());
  EXPECT_EQ(*kernel_->build_id(), "0123456789abcdef");
}

TEST_F(ElfSymbolsAlpha, IteratesFunctionsInAddressOrder) {
  std::vector<std::string> names;
  for (const ElfSymbol& function : kernel_->functions()) names.push_back(function.name);
  EXPECT_EQ(names, (std::vector<std::string>{"kernel_entry", "idle_loop", "unsized_tail"}));
}

TEST(ElfSymbolsStripped, FileWithoutSymbolTableIsAClearError) {
  const std::string stripped = fixture_path("fake_kernel_stripped.elf");
  if (stripped.empty()) GTEST_SKIP() << "no Alpha binutils";
  EXPECT_EQ(error_of([&] { ElfSymbols::open(stripped); }), stripped + " has no symbol table");
}

TEST(SymbolNames, DemanglesCxxAndKeepsCNames) {
  EXPECT_EQ(demangle("_ZN6kernel8workload10copy_wordsEPmPKmm"),
            "kernel::workload::copy_words(unsigned long*, unsigned long const*, unsigned long)");
  EXPECT_EQ(demangle("idle_loop"), "idle_loop");
  EXPECT_EQ(demangle("_Znot_really_mangled"), "_Znot_really_mangled");
}

}  // namespace
}  // namespace dcpi
