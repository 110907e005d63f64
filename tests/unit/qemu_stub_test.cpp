// GdbClient against a real qemu-system-alpha (its bundled
// PALcode, no kernel): the QEMU-specific behaviour the fake stub cannot
// vouch for. Skipped when QEMU or the Alpha fixtures are missing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include "fake_gdb_stub.h"
#include "firmware/memory_map.h"
#include "hostdump/gdb/gdb_client.h"
#include "symbols/elf_symbols.h"
#include "test_support.h"

extern char** environ;

namespace dcpi {
namespace {

using namespace std::chrono_literals;

// qemu-system-alpha on clipper with its GDB stub on a free loopback port.
class QemuProcess {
 public:
  QemuProcess() : port_(testing::unused_port()) {
    const std::string gdb = "tcp:127.0.0.1:" + std::to_string(port_);
    std::vector<std::string> arguments = {DCPI_QEMU_ALPHA,
                                          "-M",
                                          "clipper",
                                          "-vga",
                                          "none",
                                          "-nic",
                                          "none",
                                          "-display",
                                          "none",
                                          "-serial",
                                          "null",
                                          "-monitor",
                                          "none",
                                          "-gdb",
                                          gdb,
                                          "-icount",
                                          "shift=2,sleep=off"};
    std::vector<char*> argv;
    for (std::string& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~QemuProcess() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
  uint16_t port() const { return port_; }

  // QEMU needs a moment before its stub listens.
  std::unique_ptr<GdbClient> connect() const {
    for (int attempt = 0;; ++attempt) {
      try {
        return std::make_unique<GdbClient>(StubAddress{"127.0.0.1", port_}, 5s);
      } catch (const ConnectionError&) {
        if (attempt == 50) throw;
        std::this_thread::sleep_for(100ms);
      }
    }
  }

 private:
  uint16_t port_;
  pid_t pid_ = -1;
};

class QemuStub : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(DCPI_QEMU_ALPHA).empty()) GTEST_SKIP() << "qemu-system-alpha not found";
    if (testing::fixture_path("fake_kernel.elf").empty()) GTEST_SKIP() << "no Alpha binutils";
    qemu_.emplace();
  }
  std::optional<QemuProcess> qemu_;
};

TEST_F(QemuStub, AttachReadRegistersRunStopAndDetach) {
  std::unique_ptr<GdbClient> client = qemu_->connect();
  EXPECT_TRUE(gdb::is_stop_reply(client->stop_reply()));
  const std::vector<uint64_t> registers = client->read_registers();
  ASSERT_GE(registers.size(), 67u);
  EXPECT_TRUE(is_kseg_address(registers[alpha_reg::kPc])) << std::hex << registers[alpha_reg::kPc];
  client->resume();
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(gdb::is_stop_reply(client->interrupt()));
  client->detach();
  client.reset();
  EXPECT_NO_THROW(qemu_->connect()->detach());  // the stub takes a new debugger
}

TEST_F(QemuStub, PhysicalMemoryWriteAndReadBack) {
  std::unique_ptr<GdbClient> client = qemu_->connect();
  client->set_physical_memory_mode(true);
  std::vector<uint8_t> bytes(10000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7);
  client->write_memory(0x500000, bytes);
  EXPECT_EQ(client->read_memory(0x500000, bytes.size()), bytes);
  client->set_physical_memory_mode(false);
  client->detach();
}

}  // namespace
}  // namespace dcpi
