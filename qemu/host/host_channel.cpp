#include "qemu/host/host_channel.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace dcpi::qemu {
namespace {

// QEMU's option syntax: a comma inside a value is written twice.
std::string option_value(const std::string& text) {
  std::string out;
  for (char c : text) out += c == ',' ? std::string(",,") : std::string(1, c);
  return out;
}

}  // namespace

HostChannel::HostChannel() {
  std::string pattern = (std::filesystem::temp_directory_path() / "dcpi-host-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot create a temporary directory for the guest's messages: " +
                             std::string(std::strerror(errno)));
  directory_ = pattern;
  file_ = directory_ / "messages";
}

HostChannel::~HostChannel() {
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

std::vector<std::string> HostChannel::qemu_arguments() const {
  return {"-chardev", "file,id=dcpi-host,path=" + option_value(file_.string()), "-device",
          "isa-serial,chardev=dcpi-host,iobase=0x3e8,irq=5"};
}

const std::string& HostChannel::read() {
  const int fd = open(file_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text_;  // QEMU has not created it yet
  char buffer[4096];
  for (off_t at = static_cast<off_t>(text_.size());;) {
    const ssize_t n = pread(fd, buffer, sizeof buffer, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text_.append(buffer, static_cast<size_t>(n));
    at += n;
  }
  close(fd);
  return text_;
}

bool find_line(std::string_view text, std::string_view prefix, bool whole_line, size_t from,
               size_t* found) {
  for (size_t at = text.find(prefix, from); at != std::string_view::npos;
       at = text.find(prefix, at + 1)) {
    if (at > 0 && text[at - 1] != '\n') continue;
    const size_t end = at + prefix.size();
    if (whole_line && end < text.size() && text[end] != '\n' && text[end] != '\r') continue;
    if (whole_line && end == text.size()) continue;  // the line may still be arriving
    if (found) *found = at;
    return true;
  }
  return false;
}

}  // namespace dcpi::qemu
