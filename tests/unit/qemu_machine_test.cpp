// The host's QEMU command line and process handling (qemu/).
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>

#include "qemu/host/machine_config.h"
#include "qemu/host/qemu_process.h"

namespace dcpi::qemu {
namespace {

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += a + "\n";
  return s;
}

TEST(QemuMachine, CommandHasIcountAndLoopbackOnly) {
  MachineConfig config;
  config.palcode = "p.elf";
  config.kernel = "k.elf";
  config.initrd = "i.cpio";
  config.cpus = 4;
  config.gdb_port = 1234;
  config.serial2_port = 5678;
  const std::string argv = joined(qemu_command(config));
  EXPECT_NE(argv.find("-icount\nshift=2,sleep=off\n"), std::string::npos);
  EXPECT_NE(argv.find("-gdb\ntcp:127.0.0.1:1234\n"), std::string::npos);
  EXPECT_NE(argv.find("-serial\ntcp:127.0.0.1:5678\n"), std::string::npos);
  EXPECT_NE(argv.find("-initrd\ni.cpio\n"), std::string::npos);
  EXPECT_NE(argv.find("-smp\n4\n"), std::string::npos);
}

TEST(QemuMachine, RejectsBadConfigurations) {
  MachineConfig config;
  config.palcode = "/nonexistent/p.elf";
  config.kernel = "/nonexistent/k.elf";
  EXPECT_THROW(check_machine_config(config), std::invalid_argument);
  config.cpus = 5;
  try {
    check_machine_config(config);
    FAIL() << "5 CPUs accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1 to 4 CPUs"), std::string::npos);
  }
  config.cpus = 1;
  config.palcode = "/bin/sh";  // an ELF, but not an Alpha one
  config.kernel = "/bin/sh";
  try {
    check_machine_config(config);
    FAIL() << "host ELF accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not an Alpha ELF"), std::string::npos);
  }
}

TEST(QemuProcess, WaitsForAMarkerAndReportsTheExit) {
  std::ostringstream echo;
  QemuProcess process({"/bin/sh", "-c", "echo booting; echo DCPI-DONE; exit 3"}, &echo);
  EXPECT_TRUE(process.wait_for("DCPI-DONE", 10));
  EXPECT_TRUE(process.wait_exit(10));
  EXPECT_FALSE(process.running());
  EXPECT_EQ(process.exit_description(), "exited with status 3");
  EXPECT_EQ(echo.str(), "booting\nDCPI-DONE\n");
}

TEST(QemuProcess, TimesOutAndKills) {
  QemuProcess process({"/bin/sh", "-c", "echo hello; exec sleep 30"}, nullptr);
  EXPECT_FALSE(process.wait_for("never", 0.3));
  EXPECT_TRUE(process.running());
  process.kill();
  EXPECT_EQ(process.exit_description(), "killed by signal 9");
  EXPECT_EQ(process.console(), "hello\n");
}

TEST(QemuProcess, MissingBinaryIsAClearError) {
  EXPECT_THROW(QemuProcess({"/nonexistent/qemu-system-alpha"}, nullptr), std::runtime_error);
}

}  // namespace
}  // namespace dcpi::qemu
