// What `dcpi run -- PROGRAM` refuses before boot (issue 30): init's script
// lines cut at 512 bytes, newlines in names and arguments, --file of a
// FIFO, a device, a directory or more than the guest can hold, a --file
// over the bundle's own files or given twice, a truncated ELF.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "qemu/bundle/cpio_archive.h"
#include "qemu/bundle/program_bundle.h"

namespace dcpi::qemu {
namespace {

namespace fs = std::filesystem;

class BundleInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_regular_file(program_) || !fs::is_directory(kAlphaSysrootLib))
      GTEST_SKIP() << "no Linux test program or Alpha sysroot";
    dir_ = fs::temp_directory_path() / ("dcpi-bundle-inputs-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "base.cpio", std::ios::binary)
        << write_cpio({{"bin", kCpioDirectory | 0755, ""},
                       {"bin/init", kCpioRegular | 0755, "init"},
                       {"etc/default.mix", kCpioRegular | 0644, "/bin/copy\n"}});
    std::ofstream(dir_ / "data.txt") << "data";
    request_.base_initrd = dir_ / "base.cpio";
    request_.programs = {{program_, {}}};
    request_.guest_memory_bytes = uint64_t{256} << 20;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // The one-line error bundling gives, or "" if it succeeds.
  std::string error() {
    try {
      bundle_program(request_);
      return "";
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  }

  const fs::path program_ = fs::path(DCPI_LINUX_PROGRAMS_DIR) / "sorter";
  fs::path dir_;
  ProgramRequest request_;
};

TEST_F(BundleInputs, ALineInitWouldCutIsRefused) {
  // 501 bytes and then a word: init used to run the word as a command.
  request_.programs[0].arguments = {std::string(501, 'a'), "/bin/dcpictl"};
  EXPECT_NE(error().find("init runs commands of at most 510 bytes"), std::string::npos) << error();
  request_.programs[0].arguments = {std::string(400, 'a')};
  EXPECT_EQ(error(), "");
}

TEST_F(BundleInputs, NewlinesInArgumentsAndNamesAreRefused) {
  request_.programs[0].arguments = {"a\n/bin/dcpictl"};
  EXPECT_NE(error().find("cannot contain a newline"), std::string::npos) << error();
  request_.programs[0].arguments = {"a\rb"};
  EXPECT_NE(error().find("cannot contain a newline"), std::string::npos) << error();
  request_.programs[0].arguments = {};
  const fs::path odd = dir_ / "two\nlines";
  fs::copy_file(program_, odd);
  request_.programs[0].program = odd;
  EXPECT_NE(error().find("name cannot contain a newline"), std::string::npos) << error();
}

TEST_F(BundleInputs, OnlyRegularFilesOfABoundedSizeAreCopied) {
  ASSERT_EQ(mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  for (const std::string& file :
       {(dir_ / "fifo").string(), std::string("/dev/zero"), dir_.string()}) {
    request_.files = {file + ":/data/x"};
    EXPECT_NE(error().find("is not a regular file"), std::string::npos) << file << ": " << error();
  }
  request_.files = {(dir_ / "missing").string()};
  EXPECT_NE(error().find("no such file"), std::string::npos) << error();
  // Larger than the guest's memory beside the kernel: refused before reading.
  { std::ofstream big(dir_ / "big"); }
  fs::resize_file(dir_ / "big", uint64_t{300} << 20);  // sparse
  request_.files = {(dir_ / "big").string()};
  EXPECT_NE(error().find("more than the guest's memory can hold"), std::string::npos) << error();
  request_.files = {(dir_ / "data.txt").string()};
  EXPECT_EQ(error(), "");
}

TEST_F(BundleInputs, AFileMayNotReplaceTheBundlesOwnFilesNorComeTwice) {
  const std::string data = (dir_ / "data.txt").string();
  for (const char* guest : {"/bin/init", "/lib/ld-linux.so.2", "/bin/sorter", "/etc/program.mix",
                            "/lib/libc.so.6.1", "/bin"}) {
    request_.files = {data + ":" + guest};
    EXPECT_NE(error().find("is already in the initrd"), std::string::npos)
        << guest << ": " << error();
  }
  request_.files = {data + ":/data/a", data + ":/data/a"};
  EXPECT_NE(error().find("is already in the initrd"), std::string::npos) << error();
  request_.files = {data + ":/bin/../bin/init"};
  EXPECT_NE(error().find("plain absolute file path"), std::string::npos) << error();
  request_.files = {data + ":/data/a", data + ":/data/b"};
  EXPECT_EQ(error(), "");
}

// `dcpi run -- ./a.out input.txt` as `perf record` would run it: an argument
// naming a host file is in the guest at that path from "/", the programs'
// working directory; other arguments, and files the bundle has, are left.
TEST_F(BundleInputs, AnArgumentNamingAHostFileIsCopiedAtItsPath) {
  const std::string absolute = (dir_ / "data.txt").string();
  request_.programs = {{program_, {absolute, "-v", (dir_ / "missing").string(), "42"}}};
  ProgramBundle bundle = bundle_program(request_);
  ASSERT_EQ(bundle.argument_files.size(), 1u);
  EXPECT_EQ(bundle.argument_files[0], absolute + " -> " + absolute);
  bool found = false;
  for (const CpioEntry& e : read_cpio(bundle.archive))
    found |= "/" + e.name == absolute && e.data == "data";
  EXPECT_TRUE(found) << absolute << " is not in the initrd";
  // Relative: from the host's working directory to "/" in the guest.
  // One the bundle has (init) stays the bundle's.
  fs::create_directories(dir_ / "bin");
  std::ofstream(dir_ / "bin" / "init") << "not init";
  const fs::path before = fs::current_path();
  fs::current_path(dir_);
  request_.programs = {{program_, {"./data.txt", "bin/init"}}};
  bundle = bundle_program(request_);
  fs::current_path(before);
  ASSERT_EQ(bundle.argument_files.size(), 1u);
  EXPECT_EQ(bundle.argument_files[0], "./data.txt -> /data.txt");
}

TEST_F(BundleInputs, ATruncatedElfIsRefusedWithTheReason) {
  const uint64_t size = fs::file_size(program_);
  std::ifstream in(program_, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  int refused = 0, points = 0;
  for (uint64_t cut = 256; cut < size; cut += size / 16, ++points) {
    const fs::path truncated = dir_ / "sorter";  // the same name in the guest
    std::ofstream(truncated, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(cut));
    fs::permissions(truncated, fs::perms::owner_all);
    request_.programs[0].program = truncated;
    const std::string message = error();
    if (!message.empty()) ++refused;
    EXPECT_NE(message, "") << "cut at " << cut << " of " << size;
  }
  EXPECT_EQ(refused, points);
}

// The login a bundled program starts with (/etc/environment, which init
// passes; /etc/passwd and /etc/group), --env over it, a user's own kept.
TEST_F(BundleInputs, TheProgramsGetALoginEnvironmentAndUsers) {
  request_.environment = {"HOME=/tmp", "OMP_NUM_THREADS=4", "EMPTY="};
  std::map<std::string, std::string> files;
  for (const CpioEntry& e : read_cpio(bundle_program(request_).archive)) files[e.name] = e.data;
  const std::string& environment = files["etc/environment"];
  EXPECT_NE(environment.find("\nPATH=/bin:/usr/bin\n"), std::string::npos) << environment;
  EXPECT_NE(environment.find("\nHOME=/tmp\n"), std::string::npos) << environment;
  EXPECT_EQ(environment.find("HOME=/\n"), std::string::npos) << "replaced, not added twice";
  EXPECT_NE(environment.find("\nOMP_NUM_THREADS=4\nEMPTY=\n"), std::string::npos) << environment;
  EXPECT_EQ(files["etc/passwd"].rfind("root:x:0:0:", 0), 0u) << files["etc/passwd"];
  EXPECT_EQ(files["etc/group"].rfind("root:x:0:", 0), 0u) << files["etc/group"];

  std::ofstream(dir_ / "env") << "ONLY=mine\n";
  request_.files = {(dir_ / "env").string() + ":/etc/environment"};
  files.clear();
  for (const CpioEntry& e : read_cpio(bundle_program(request_).archive)) files[e.name] = e.data;
  EXPECT_EQ(files["etc/environment"], "ONLY=mine\n");
}

TEST_F(BundleInputs, AnEnvironmentInitCannotPassIsRefused) {
  for (const char* bad : {"NOEQUALS", "=value", "1ST=x", "A-B=x", "A=line\nB=x"}) {
    request_.environment = {bad};
    EXPECT_NE(error().find("--env"), std::string::npos) << bad << ": " << error();
  }
  request_.environment = {"LONG=" + std::string(1100, 'x')};
  EXPECT_NE(error().find("at most 1022"), std::string::npos) << error();
  request_.environment.clear();
  for (int i = 0; i < 60; ++i) request_.environment.push_back("V" + std::to_string(i) + "=1");
  EXPECT_NE(error().find("at most 63"), std::string::npos) << error();
}

}  // namespace
}  // namespace dcpi::qemu
