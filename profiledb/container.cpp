#include "profiledb/container.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "firmware/crc32c.h"

namespace dcpi::profiledb {

void put_varint(std::vector<uint8_t>& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<uint8_t>(value));
}

void append_bytes(std::vector<uint8_t>& out, const void* data, size_t length) {
  const auto* p = static_cast<const uint8_t*>(data);
  out.insert(out.end(), p, p + length);
}

ContainerPrefix make_prefix(const ContainerKind& kind, size_t string_bytes) {
  ContainerPrefix prefix{};
  std::memcpy(prefix.magic, kind.magic.data(), sizeof prefix.magic);
  prefix.version = kind.version;
  prefix.header_bytes = static_cast<uint32_t>(kind.fixed_header_bytes + string_bytes);
  return prefix;
}

void seal(std::vector<uint8_t>& out, const ContainerKind& kind) {
  const uint32_t crc = crc32c(out.data(), out.size());
  append_bytes(out, &crc, sizeof crc);
  append_bytes(out, &kind.trailer_magic, sizeof kind.trailer_magic);
}

ContainerPrefix check_prefix(std::span<const uint8_t> bytes, const std::string& path,
                             const ContainerKind& kind) {
  const std::string noun = kind.noun;
  if (bytes.size() < kind.fixed_header_bytes)
    throw ProfileFormatError(path, bytes.size(),
                             "file too short for a " + noun + " file header (" +
                                 std::to_string(bytes.size()) + " bytes)");
  ContainerPrefix prefix;
  std::memcpy(&prefix, bytes.data(), sizeof prefix);
  if (std::memcmp(prefix.magic, kind.magic.data(), sizeof prefix.magic) != 0)
    throw ProfileFormatError(path, 0, "bad magic: not a dcpi " + noun + " file");
  const uint32_t oldest = kind.oldest_version != 0 ? kind.oldest_version : kind.version;
  if (prefix.version < oldest || prefix.version > kind.version)
    throw ProfileFormatError(path, 8,
                             "unsupported " + noun + " file version " +
                                 std::to_string(prefix.version) + " (this dcpi reads version " +
                                 std::to_string(kind.version) + ")");
  return prefix;
}

void check_header_bytes(const ContainerPrefix& prefix, const ContainerKind& kind,
                        uint64_t string_bytes, std::span<const uint8_t> bytes,
                        const std::string& path) {
  if (prefix.header_bytes != kind.fixed_header_bytes + string_bytes)
    throw ProfileFormatError(
        path, offsetof(ContainerPrefix, header_bytes),
        "header size " + std::to_string(prefix.header_bytes) + " does not match its strings");
  if (prefix.header_bytes > bytes.size())
    throw ProfileFormatError(path, bytes.size(), "truncated header strings");
}

size_t check_trailer(std::span<const uint8_t> bytes, uint32_t header_bytes, const std::string& path,
                     const ContainerKind& kind) {
  if (bytes.size() < size_t{header_bytes} + kTrailerBytes)
    throw ProfileFormatError(path, bytes.size(), "truncated: no room for the trailer");
  const size_t trailer = bytes.size() - kTrailerBytes;
  uint32_t stored_crc = 0, magic = 0;
  std::memcpy(&stored_crc, bytes.data() + trailer, sizeof stored_crc);
  std::memcpy(&magic, bytes.data() + trailer + 4, sizeof magic);
  if (magic != kind.trailer_magic)
    throw ProfileFormatError(path, trailer + 4, "bad trailer magic (truncated or torn file?)");
  if (stored_crc != crc32c(bytes.data(), trailer))
    throw ProfileFormatError(path, trailer, "checksum mismatch (corrupt file)");
  return trailer;
}

bool is_lower_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

void Cursor::fail(size_t offset, const std::string& problem) const {
  throw ProfileFormatError(path_, offset, problem);
}

uint64_t Cursor::varint(const char* what) {
  const size_t start = position_;
  uint64_t value = 0;
  for (size_t i = 0;; ++i) {
    if (position_ >= end_) fail(start, std::string("truncated varint (") + what + ")");
    const uint8_t byte = bytes_[position_++];
    if (i == kMaxVarintBytes - 1 && byte > 1)
      fail(start, std::string("varint overflows 64 bits (") + what + ")");
    value |= uint64_t{byte & 0x7fu} << (7 * i);
    if (!(byte & 0x80)) {
      if (i > 0 && byte == 0) fail(start, std::string("overlong varint (") + what + ")");
      return value;
    }
  }
}

double Cursor::f64(const char* what) {
  if (remaining() < sizeof(double)) fail(position_, std::string("truncated ") + what);
  double value;
  std::memcpy(&value, bytes_.data() + position_, sizeof value);
  position_ += sizeof value;
  return value;
}

std::string Cursor::text(size_t length, const char* what) {
  if (length > remaining()) fail(position_, std::string("truncated ") + what);
  std::string out(reinterpret_cast<const char*>(bytes_.data() + position_), length);
  position_ += length;
  return out;
}

std::vector<uint8_t> read_file_bytes(const std::filesystem::path& file, size_t limit,
                                     uint64_t max_size) {
  const std::string name = file.string();
  // O_NONBLOCK: a FIFO put in place of a database file must not hang a
  // reader (issue 18); the type check below then refuses it.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw ProfileDatabaseError("cannot open " + name + ": " + std::strerror(errno));
  struct stat status {};
  auto fail = [&](const std::string& problem) {
    ::close(fd);
    throw ProfileDatabaseError(name + ": " + problem);
  };
  if (::fstat(fd, &status) != 0) fail(std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(status.st_mode)) fail("not a regular file (" + file_type_name(status.st_mode) + ")");
  const uint64_t size = static_cast<uint64_t>(status.st_size);
  if (size > max_size && limit >= size)
    fail(std::to_string(size) + " bytes, more than such a file may hold (" +
         std::to_string(max_size) + ")");
  std::vector<uint8_t> bytes(static_cast<size_t>(std::min<uint64_t>(size, limit)));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(std::string("cannot read: ") + std::strerror(errno));
    if (got == 0) break;  // shrank meanwhile: the decoder reports the truncation
    done += static_cast<size_t>(got);
  }
  bytes.resize(done);
  ::close(fd);
  return bytes;
}

std::string file_type_name(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return S_ISREG(mode) ? "a regular file" : "an unknown file type";
}

}  // namespace dcpi::profiledb
