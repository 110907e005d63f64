// qemu/bundle: the cpio reader and writer (fuzzed: a damaged archive is an
// error, never a crash) and program bundling against the cross sysroot.
#include "qemu/bundle/program_bundle.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "qemu/bundle/cpio_archive.h"
#include "qemu/bundle/elf_facts.h"

namespace dcpi::qemu {
namespace {

const std::vector<CpioEntry> kEntries = {
    {"bin", kCpioDirectory | 0755, ""},
    {"bin/init", kCpioRegular | 0755,
     std::string("\x7f"
                 "ELF\0\1\2",
                 7)},
    {"etc/default.mix", kCpioRegular | 0644, "/bin/copy\n"},
};

TEST(CpioArchive, RoundTripsEntries) {
  const std::vector<CpioEntry> back = read_cpio(write_cpio(kEntries));
  ASSERT_EQ(back.size(), kEntries.size());
  for (size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].name, kEntries[i].name);
    EXPECT_EQ(back[i].mode, kEntries[i].mode);
    EXPECT_EQ(back[i].data, kEntries[i].data);
  }
}

TEST(CpioArchive, ReadsWhatCpioWrites) {  // the oracle: GNU cpio's own newc output
  const auto dir = std::filesystem::temp_directory_path() / "dcpi-cpio-test";
  std::filesystem::create_directories(dir / "bin");
  std::ofstream(dir / "bin/hello") << "hello world";
  ASSERT_EQ(std::system(("cd " + dir.string() +
                         " && find bin | cpio --quiet -o -H newc > ../dcpi-cpio-test.cpio")
                            .c_str()),
            0);
  std::ifstream in(dir.string() + ".cpio", std::ios::binary);
  const std::string archive((std::istreambuf_iterator<char>(in)), {});
  const auto entries = read_cpio(archive);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].name, "bin/hello");
  EXPECT_EQ(entries[1].data, "hello world");
  std::filesystem::remove_all(dir);
  std::filesystem::remove(dir.string() + ".cpio");
}

TEST(CpioArchive, DamagedArchivesAreErrorsNotCrashes) {
  const std::string good = write_cpio(kEntries);
  std::mt19937 random(7);
  int errors = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string bad = good;
    if (round % 3 == 0) bad.resize(random() % good.size());
    for (int flips = 1 + random() % 4; flips > 0; --flips)
      bad[random() % bad.size()] = static_cast<char>(random());
    try {
      read_cpio(bad);
    } catch (const std::runtime_error& error) {
      ++errors;
      EXPECT_NE(std::string(error.what()).find("cpio:"), std::string::npos);
    }
  }
  EXPECT_GT(errors, 500);
  EXPECT_THROW(read_cpio(""), std::runtime_error);
}

TEST(ElfFacts, ReadsTheSysrootsLibraries) {
  const auto libc = kAlphaSysrootLib / "libc.so.6.1";
  if (!std::filesystem::exists(libc)) GTEST_SKIP() << "no Alpha sysroot";
  const ElfFacts facts = read_elf_facts(libc);
  EXPECT_TRUE(facts.alpha);
  EXPECT_TRUE(facts.executable);
  EXPECT_NE(std::find(facts.needed.begin(), facts.needed.end(), "ld-linux.so.2"),
            facts.needed.end());
  EXPECT_FALSE(read_elf_facts("/proc/self/exe").alpha);
  EXPECT_THROW(read_elf_facts("/etc/hostname"), std::runtime_error);
}

}  // namespace
}  // namespace dcpi::qemu
