// The kernel's and init's messages to the host (issue 30): a third 16550
// (COM3, ISA 0x3e8) that QEMU writes to a file in a private temporary
// directory. Only the kernel writes to it (every kprintf, init's output), so
// a profiled program that prints `panic: ...`, `DCPI-DONE` or init's verdict
// lines on the console cannot steer the run: the host reads its verdicts
// here and only echoes the console.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace dcpi::qemu {

class HostChannel {
 public:
  // Creates the private directory; throws std::runtime_error if it cannot.
  HostChannel();
  ~HostChannel();
  HostChannel(const HostChannel&) = delete;
  HostChannel& operator=(const HostChannel&) = delete;

  // QEMU's arguments for the third UART writing to this channel's file.
  std::vector<std::string> qemu_arguments() const;
  // Reads what arrived since the last call; returns the whole text so far.
  const std::string& read();
  const std::string& text() const { return text_; }

 private:
  std::filesystem::path directory_;
  std::filesystem::path file_;
  std::string text_;
};

// True if a whole line of `text` at or after `from` starts with `prefix`
// (and equals it when `whole_line`); `found` gets the line's start.
bool find_line(std::string_view text, std::string_view prefix, bool whole_line, size_t from,
               size_t* found = nullptr);

}  // namespace dcpi::qemu
