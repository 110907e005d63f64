// The host channel (issue 30): what the kernel and init send the host on
// COM3, found line by line, and the initrd checked against guest memory.
#include "qemu/host/host_channel.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "qemu/host/machine_config.h"

namespace dcpi::qemu {
namespace {

TEST(HostChannel, MarkersCountOnlyAsWholeLines) {
  EXPECT_TRUE(find_line("a\nDCPI-DONE\n", "DCPI-DONE", true, 0));
  EXPECT_FALSE(find_line("a\nDCPI-DONE", "DCPI-DONE", true, 0));  // still arriving
  EXPECT_FALSE(find_line("xDCPI-DONE\n", "DCPI-DONE", true, 0));
  EXPECT_FALSE(find_line("DCPI-DONE-NOT\n", "DCPI-DONE", true, 0));
  size_t at = 99;
  EXPECT_TRUE(find_line("x\npanic: why\n", "panic: ", false, 0, &at));
  EXPECT_EQ(at, 2u);
  EXPECT_FALSE(find_line("no panic: here\n", "panic: ", false, 0));
}

TEST(HostChannel, QemuWritesItToAPrivateFileTheHostReads) {
  std::string file;
  {
    HostChannel channel;
    const std::vector<std::string> args = channel.qemu_arguments();
    ASSERT_EQ(args.size(), 4u);
    EXPECT_EQ(args[2], "-device");
    EXPECT_NE(args[3].find("iobase=0x3e8"), std::string::npos);
    file = args[1].substr(args[1].find("path=") + 5);
    EXPECT_EQ(channel.read(), "");  // QEMU has not created it yet
    std::ofstream(file) << "dcpi-kernel: one\n";
    EXPECT_EQ(channel.read(), "dcpi-kernel: one\n");
    std::ofstream(file, std::ios::app) << "DCPI-DONE\n";
    EXPECT_EQ(channel.read(), "dcpi-kernel: one\nDCPI-DONE\n");
  }
  EXPECT_FALSE(std::filesystem::exists(file));  // removed with its directory
}

// QEMU does not load an initrd larger than memory, and the guest then idled
// to the timeout with nothing on the console (issue 30).
TEST(MachineConfig, AnInitrdTheMemoryCannotHoldIsRefusedWithTheMemoryItNeeds) {
  const std::filesystem::path initrd =
      std::filesystem::temp_directory_path() / ("dcpi-big-initrd-" + std::to_string(getpid()));
  { std::ofstream create(initrd); }
  std::filesystem::resize_file(initrd, uint64_t{300} << 20);  // sparse
  try {
    check_initrd_fits(initrd.string(), 256);
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("does not fit in 256 MB of guest memory"),
              std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("--memory 332 or more"), std::string::npos)
        << error.what();
  }
  EXPECT_NO_THROW(check_initrd_fits(initrd.string(), 512));
  std::filesystem::remove(initrd);
}

}  // namespace
}  // namespace dcpi::qemu
