// ElfImage (symbols + DWARF lines + code bytes) and ImageResolver on the
// Alpha fixtures: procedure fallbacks, line lookups, stripped files, and how
// the resolver finds (or refuses) an ELF for a profile's image identity.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "report_fixture.h"
#include "symbols/demangle.h"
#include "symbols/elf_image.h"
#include "symbols/image_resolver.h"
#include "test_support.h"

namespace dcpi {
namespace {

namespace fs = std::filesystem;
using testing::fixture_path;
using testing::readelf_fdes;
using testing::TempDir;

std::string workload_fixture() {
  const std::string path = fixture_path("dwarf_workload.elf");
  return path;
}

TEST(ElfImage, LinesAndProceduresFromDwarfFixture) {
  const std::string path = workload_fixture();
  if (path.empty()) GTEST_SKIP() << "no Alpha cross compiler";
  const ElfImage image = ElfImage::open(path);
  EXPECT_EQ(image.build_id(), testing::kWorkloadBuildId);
  ASSERT_TRUE(image.has_line_info()) << image.dwarf_problem();
  const auto hot = image.source_at(testing::kAccumulate + 0x10);
  ASSERT_TRUE(hot);
  EXPECT_EQ(hot->line, 8);
  EXPECT_TRUE(hot->file.ends_with("fixtures/dwarf_workload.c")) << hot->file;
  EXPECT_EQ(image.source_at(testing::kAccumulate + 0x18)->line, 7);
  EXPECT_EQ(image.source_at(testing::kCopyWords)->line, 13);
  EXPECT_FALSE(image.source_at(0x1000));
  const auto procedure = image.procedure_at(testing::kAccumulate + 0x24);
  ASSERT_TRUE(procedure);
  EXPECT_EQ(procedure->name, "accumulate");
  EXPECT_EQ(procedure->source, ProcedureSource::kFunctionSymbol);
  EXPECT_EQ(procedure->size, 0x28u);
  EXPECT_EQ(image.procedure_end(*procedure), testing::kCopyWords);
  EXPECT_EQ(image.instruction_at(testing::kAccumulate + 0x10), 0xa4410000u);
  EXPECT_FALSE(image.instruction_at(0x120010008));  // .bss: no bytes in the file
  EXPECT_FALSE(image.procedure_at(0x120010008));    // and no code
}

TEST(ElfImage, NearestSymbolFallbackAndNoDwarf) {
  const std::string path = fixture_path("fake_kernel.elf");
  if (path.empty()) GTEST_SKIP() << "no Alpha binutils";
  const ElfImage image = ElfImage::open(path);
  EXPECT_FALSE(image.has_line_info());
  EXPECT_NE(image.dwarf_problem(), "");
  EXPECT_FALSE(image.source_at(testing::kKernelEntry));
  const auto gap = image.procedure_at(testing::kIdleGap);
  ASSERT_TRUE(gap);
  EXPECT_EQ(gap->name, "idle_loop");
  EXPECT_EQ(gap->source, ProcedureSource::kNearestSymbol);
  const auto tail = image.procedure_at(testing::kUnsizedTail + 8);
  ASSERT_TRUE(tail);
  EXPECT_EQ(tail->name, "unsized_tail");
  EXPECT_EQ(image.procedure_end(*tail), testing::kUnsizedTail + 16);  // end of .text
  EXPECT_FALSE(image.procedure_at(testing::kKernelText - 4));
  ASSERT_TRUE(image.procedure_named("kernel_entry"));
  EXPECT_FALSE(image.procedure_named("dcpi_transfer_ring"));  // data, not code
}

std::pair<uint64_t, uint64_t> readelf_fde_covering(const std::string& path, uint64_t address) {
  for (const auto& [begin, end] : readelf_fdes(path))
    if (begin <= address && address < end) return {begin, end};
  return {0, 0};
}

TEST(ElfImage, StrippedFileOpensWithoutNames) {
  const std::string path = fixture_path("dwarf_workload_stripped.elf");
  if (path.empty()) GTEST_SKIP() << "no Alpha cross compiler";
  const ElfImage image = ElfImage::open(path);
  EXPECT_TRUE(image.symbols().functions().empty());
  // No symbol names it: the procedure is the one its .eh_frame FDE covers.
  const auto accumulate = image.procedure_at(testing::kAccumulate + 8);
  ASSERT_TRUE(accumulate);
  EXPECT_EQ(accumulate->source, ProcedureSource::kFrameInfo);
  const auto [begin, end] = readelf_fde_covering(path, testing::kAccumulate + 8);
  ASSERT_NE(end, 0u) << "readelf lists no FDE for the fixture's accumulate";
  EXPECT_EQ(accumulate->start, begin);
  EXPECT_EQ(accumulate->start, testing::kAccumulate);
  EXPECT_EQ(image.procedure_end(*accumulate), end);
  char name[32];
  std::snprintf(name, sizeof name, "0x%llx", static_cast<unsigned long long>(begin));
  EXPECT_EQ(accumulate->name, name);
  EXPECT_FALSE(image.has_line_info());
  EXPECT_EQ(image.build_id(), testing::kWorkloadBuildId);  // strip keeps the note
  EXPECT_EQ(image.instruction_at(testing::kAccumulate + 0x10), 0xa4410000u);
}

TEST(ElfImage, StrippedLibraryNamesOnlyItsExportedFunctions) {
  // Debian's cross libc has .dynsym only: _IO_vfprintf is a 0x30-byte
  // wrapper and the code after it (glibc's static __vfprintf_internal) is
  // not _IO_vfprintf's.
  const std::string libc = "/usr/alpha-linux-gnu/lib/libc.so.6.1";
  if (!fs::exists(libc)) GTEST_SKIP() << "no Alpha sysroot";
  const ElfImage image = ElfImage::open(libc);
  ASSERT_TRUE(image.symbols().dynamic_symbols_only());
  const ElfSymbol& wrapper = image.symbols().lookup("_IO_vfprintf");
  ASSERT_GT(wrapper.size, 0u);
  const auto inside = image.procedure_at(wrapper.address + 4);
  ASSERT_TRUE(inside);
  EXPECT_EQ(inside->source, ProcedureSource::kFunctionSymbol);
  const auto after = image.procedure_at(wrapper.address + wrapper.size + 0x40);
  ASSERT_TRUE(after);
  EXPECT_GT(after->start, wrapper.address) << after->name;
  // Static functions (no .dynsym entry): each is the procedure its FDE covers.
  auto named = [&](uint64_t begin, uint64_t end) {
    return std::any_of(
        image.symbols().symbols().begin(), image.symbols().symbols().end(),
        [&](const ElfSymbol& symbol) { return symbol.address >= begin && symbol.address < end; });
  };
  size_t static_functions = 0;
  for (const auto& [begin, end] : readelf_fdes(libc)) {
    if (image.symbols().function_containing(begin) != nullptr || named(begin, end) ||
        end - begin < 8)
      continue;
    const auto inside = image.procedure_at(begin + 4);
    ASSERT_TRUE(inside) << std::hex << begin;
    EXPECT_EQ(inside->source, ProcedureSource::kFrameInfo) << std::hex << begin;
    EXPECT_EQ(inside->start, begin);
    EXPECT_EQ(inside->start + inside->size, end);
    ++static_functions;
  }
  EXPECT_GT(static_functions, 100u);
}

// Aliases name their code as perf does (choose_best_symbol): glibc's memcmp,
// bcmp (weak) and __memcmpeq share one address; the profile says memcmp.
TEST(ElfImage, AliasesAreNamedAsPerfNamesThem) {
  const std::string libc = "/usr/alpha-linux-gnu/lib/libc.so.6.1";
  if (!fs::exists(libc)) GTEST_SKIP() << "no Alpha sysroot";
  const ElfImage image = ElfImage::open(libc);
  const ElfSymbol& memcmp = image.symbols().lookup("memcmp");
  ASSERT_EQ(image.symbols().lookup("__memcmpeq").address, memcmp.address);
  ASSERT_EQ(image.symbols().lookup("bcmp").address, memcmp.address);
  const auto procedure = image.procedure_at(memcmp.address + 8);
  ASSERT_TRUE(procedure);
  EXPECT_EQ(procedure->name, "memcmp");
}

// PLT stubs are named `foo@plt` from the lazy-binding relocations. Oracle:
// binutils' readelf lists each R_ALPHA_JMP_SLOT (GOT slot, symbol); the
// slot's initial contents, read here from the .got section's bytes, is the
// stub a call enters before ld.so resolves it.
TEST(ElfImage, PltStubsAreNamedByTheirRelocation) {
  const std::string library = "/usr/alpha-linux-gnu/lib/libstdc++.so.6";
  if (!fs::exists(library)) GTEST_SKIP() << "no Alpha sysroot";
  FILE* pipe = popen(("alpha-linux-gnu-readelf -rW " + library + " 2>/dev/null").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::vector<std::pair<uint64_t, std::string>> slots;
  char line[512];
  while (std::fgets(line, sizeof line, pipe)) {
    char offset[32], info[32], type[64], value[32], name[256];
    if (std::sscanf(line, "%31s %31s %63s %31s %255s", offset, info, type, value, name) == 5 &&
        std::string(type) == "R_ALPHA_JMP_SLOT")
      slots.emplace_back(std::stoull(offset, nullptr, 16),
                         std::string(name).substr(0, std::string(name).find('@')));
  }
  if (pclose(pipe) != 0 || slots.empty()) GTEST_SKIP() << "no alpha-linux-gnu-readelf";
  const ElfImage image = ElfImage::open(library, {.line_tables = false});
  size_t checked = 0;
  for (const auto& [slot, name] : slots) {
    for (const ElfSection& section : image.sections()) {
      if (slot < section.address || slot + 8 > section.address + section.bytes.size()) continue;
      uint64_t stub = 0;
      std::memcpy(&stub, section.bytes.data() + (slot - section.address), 8);
      const auto procedure = image.procedure_at(stub);
      ASSERT_TRUE(procedure) << name;
      EXPECT_EQ(procedure->name, demangle(name) + "@plt");
      EXPECT_EQ(procedure->start, stub);
      ++checked;
    }
  }
  EXPECT_EQ(checked, slots.size());
  EXPECT_GT(checked, 100u);  // libstdc++ imports hundreds of functions
}

TEST(ElfImage, NonElfIsAClearError) {
  TempDir dir;
  testing::write_file(dir.file("text"), {'h', 'e', 'l', 'l', 'o'});
  EXPECT_THROW(ElfImage::open(dir.file("text")), ElfError);
  EXPECT_THROW(ElfImage::open(dir.file("missing")), ElfError);
}

TEST(ImageResolver, SearchPathParsing) {
  EXPECT_EQ(ImageResolver::parse_search_path("a:b::c/d"), (std::vector<fs::path>{"a", "b", "c/d"}));
  EXPECT_TRUE(ImageResolver::parse_search_path("").empty());
}

TEST(ImageResolver, FindsByNameDeepInTheTreeAndByBuildId) {
  const std::string kernel = fixture_path("fake_kernel.elf");
  const std::string workload = workload_fixture();
  if (kernel.empty() || workload.empty()) GTEST_SKIP() << "no Alpha cross toolchain";
  TempDir dir;
  fs::create_directories(dir.file("guest/kernel"));
  fs::copy_file(kernel, dir.file("guest/kernel/kernel.elf"));  // like build/guest/kernel/kernel.elf
  fs::copy_file(workload, dir.file("guest/renamed.bin"));      // found by build-id only
  ImageResolver resolver({dir.file("guest")});
  const ResolvedImage& by_name = resolver.resolve(testing::kernel_identity());
  ASSERT_TRUE(by_name.elf) << by_name.warning;
  EXPECT_TRUE(by_name.elf->path().ends_with("guest/kernel/kernel.elf"));
  const ResolvedImage& by_id = resolver.resolve(testing::workload_identity());
  ASSERT_TRUE(by_id.elf) << by_id.warning;
  EXPECT_TRUE(by_id.elf->path().ends_with("renamed.bin"));
  EXPECT_TRUE(by_id.warning.empty());
}

TEST(ImageResolver, MismatchAndMalformedFilesWarn) {
  const std::string workload = workload_fixture();
  if (workload.empty()) GTEST_SKIP() << "no Alpha cross compiler";
  TempDir dir;
  fs::create_directories(dir.file("images/bin"));
  fs::copy_file(workload, dir.file("images/bin/dwarf_workload"));
  ImageResolver resolver({dir.file("images")});
  const ResolvedImage& mismatch = resolver.resolve(testing::workload_identity("00ff"));
  EXPECT_FALSE(mismatch.elf);
  EXPECT_NE(mismatch.warning.find("build-id mismatch"), std::string::npos) << mismatch.warning;
  EXPECT_NE(mismatch.warning.find("the profile has 00ff"), std::string::npos);

  std::vector<uint8_t> broken = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  broken.resize(40, 0xee);
  testing::write_file(dir.file("images/kernel"), broken);
  const ResolvedImage& malformed = resolver.resolve(testing::kernel_identity());
  EXPECT_FALSE(malformed.elf);
  EXPECT_NE(malformed.warning.find("showing addresses only"), std::string::npos);
  EXPECT_NE(malformed.warning.find("kernel"), std::string::npos) << malformed.warning;

  const ResolvedImage& absent = resolver.resolve({"", "/bin/absent", 0, false});
  EXPECT_NE(absent.warning.find("no ELF file found"), std::string::npos) << absent.warning;
  EXPECT_TRUE(resolver.resolve(testing::unknown_identity()).warning.empty());
}

}  // namespace
}  // namespace dcpi
