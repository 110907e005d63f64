// qemu/bundle: the cpio reader and writer (fuzzed: a damaged archive is an
// error, never a crash) and program bundling against the cross sysroot.
#include "qemu/bundle/program_bundle.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
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
  // glibc dlopens the unwinder by name (pthread_exit, backtrace): its
  // strings name it, and every name found is a library file name.
  const auto& named = facts.named_libraries;
  EXPECT_NE(std::find(named.begin(), named.end(), "libgcc_s.so.1"), named.end());
  for (const std::string& name : named)
    EXPECT_TRUE(name.find('/') == std::string::npos && name.find(".so") != std::string::npos)
        << name;
  EXPECT_FALSE(read_elf_facts("/proc/self/exe").alpha);
  EXPECT_THROW(read_elf_facts("/etc/hostname"), std::runtime_error);
}

// The real mix's programs (toolchain/build-real-programs.sh), bundled as
// dcpi run --mix real does: lua and bzip2 share the loader and libc; each
// goes in once, their own libraries come from the mix's lib/ directory, the
// data files go where they are told.
class BundleMix : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::is_directory(real_ / "bin")) GTEST_SKIP() << "no real mix built";
    // One file per test process: CTest runs the tests of this fixture in parallel.
    base_ = std::filesystem::temp_directory_path() /
            ("dcpi-bundle-mix-base-" + std::to_string(getpid()) + ".cpio");
    std::ofstream(base_, std::ios::binary) << write_cpio(kEntries);
    request_.base_initrd = base_;
    request_.programs = {{real_ / "bin/lua", {"etc/real/bench.lua"}}, {real_ / "bin/bzip2", {}}};
    request_.library_path.insert(request_.library_path.begin(), real_ / "lib");
    request_.files = {(real_ / "etc/real/bench.lua").string() + ":/etc/real/bench.lua"};
  }
  void TearDown() override { std::filesystem::remove(base_); }

  const std::filesystem::path real_ = DCPI_REAL_MIX_DIR;
  std::filesystem::path base_;
  ProgramRequest request_;
};

TEST_F(BundleMix, AddsProgramsLibrariesOnceAndData) {
  const ProgramBundle bundle = bundle_program(request_);
  std::map<std::string, int> names;
  for (const CpioEntry& entry : read_cpio(bundle.archive)) ++names[entry.name];
  for (const char* name : {"bin/init", "etc/default.mix", "bin/lua", "bin/bzip2",
                           "lib/ld-linux.so.2", "lib/libc.so.6.1", "lib/liblua5.4.so.0",
                           "lib/libbz2.so.1.0", "lib/libm.so.6.1", "etc/real/bench.lua"})
    EXPECT_EQ(names[name], 1) << name;
  EXPECT_EQ(bundle.guest_programs, (std::vector<std::string>{"/bin/lua", "/bin/bzip2"}));
  std::map<std::string, int> images;
  for (const BundledImage& image : bundle.images) ++images[image.guest];
  EXPECT_EQ(images["/lib/libc.so.6.1"], 1);
  EXPECT_EQ(images["/lib/ld-linux.so.2"], 1);
  EXPECT_EQ(images["/bin/lua"], 1);
  EXPECT_EQ(images["/lib/libbz2.so.1.0"], 1);
  // glibc dlopens the unwinder for pthread_exit: it goes in with libc.
  if (std::filesystem::exists(kAlphaSysrootLib / "libgcc_s.so.1")) {
    EXPECT_EQ(names["lib/libgcc_s.so.1"], 1);
    EXPECT_EQ(images["/lib/libgcc_s.so.1"], 1);
  }
}

// A library only named by an image (libc names libgcc_s.so.1) gives way to
// the user's --file at its path: the user's bytes, no "already in the
// initrd" error, and no bundled image of that path.
TEST_F(BundleMix, AFileAtANamedLibrarysPathIsTheUsers) {
  if (!std::filesystem::exists(kAlphaSysrootLib / "libgcc_s.so.1")) GTEST_SKIP();
  const auto mine = std::filesystem::temp_directory_path() /
                    ("dcpi-bundle-own-gcc-s-" + std::to_string(getpid()));
  std::ofstream(mine) << "the user's own";
  request_.files.push_back(mine.string() + ":/lib/libgcc_s.so.1");
  const ProgramBundle bundle = bundle_program(request_);
  std::filesystem::remove(mine);
  std::string data;
  for (const CpioEntry& entry : read_cpio(bundle.archive))
    if (entry.name == "lib/libgcc_s.so.1") data += entry.data;
  EXPECT_EQ(data, "the user's own");
  for (const BundledImage& image : bundle.images) EXPECT_NE(image.guest, "/lib/libgcc_s.so.1");
}

TEST_F(BundleMix, AMissingLibraryIsOneLineNamingIt) {
  request_.library_path = {kAlphaSysrootLib};
  try {
    bundle_program(request_);
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("needs the shared library liblua5.4.so.0"),
              std::string::npos)
        << error.what();
  }
}

// The guest's /bin/sh (issue 29): the real mix's dash goes in at /bin/sh,
// once, with the libraries it shares with the program; a program named sh
// keeps the name; something that is no Alpha program is refused.
TEST_F(BundleMix, PutsTheShellAtBinSh) {
  request_.shell = real_ / "bin/dash";
  const ProgramBundle bundle = bundle_program(request_);
  std::map<std::string, std::string> files;
  for (const CpioEntry& entry : read_cpio(bundle.archive)) files[entry.name] = entry.data;
  std::ifstream dash(real_ / "bin/dash", std::ios::binary);
  ASSERT_TRUE(files.count("bin/sh"));
  EXPECT_EQ(files["bin/sh"], std::string(std::istreambuf_iterator<char>(dash), {}));
  EXPECT_EQ(bundle.guest_programs, (std::vector<std::string>{"/bin/lua", "/bin/bzip2"}));
  std::map<std::string, int> images;
  for (const BundledImage& image : bundle.images) ++images[image.guest];
  EXPECT_EQ(images["/bin/sh"], 1);
  EXPECT_EQ(images["/lib/libc.so.6.1"], 1);
}

TEST_F(BundleMix, AProgramCalledShKeepsBinSh) {
  const auto dir = std::filesystem::temp_directory_path() / ("dcpi-sh-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(real_ / "bin/bzip2", dir / "sh");
  request_.programs = {{dir / "sh", {}}};
  request_.shell = real_ / "bin/dash";
  const ProgramBundle bundle = bundle_program(request_);
  std::filesystem::remove_all(dir);
  int shells = 0;
  for (const BundledImage& image : bundle.images) {
    if (image.guest != "/bin/sh") continue;
    ++shells;
    EXPECT_EQ(image.host.filename(), "sh");
  }
  EXPECT_EQ(shells, 1);
}

TEST_F(BundleMix, AShellThatIsNoAlphaProgramIsRefused) {
  request_.shell = real_ / "etc/real/bench.lua";
  EXPECT_THROW(bundle_program(request_), std::runtime_error);
}

}  // namespace
}  // namespace dcpi::qemu
