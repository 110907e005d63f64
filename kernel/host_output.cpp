#include "kernel/host_output.h"

#include "kernel/ramfs.h"
#include "kernel/text.h"
#include "kernel/uart.h"
#include "kernel/udiv.h"

namespace kernel::host_output {
namespace {

constexpr uint64_t kPathsBytes = 200;
constexpr uint64_t kBytesPerLine = 48;
char paths[kPathsBytes];

void write_text(const char* text) { uart3_write(text, string_length(text)); }

void write_decimal(uint64_t value) {
  char digits[24];
  int count = 0;
  do {
    uint64_t digit;
    value = udiv(value, 10, &digit);  // no __divqu in the kernel
    digits[count++] = static_cast<char>('0' + digit);
  } while (value != 0);
  char text[24];
  for (int i = 0; i < count; ++i) text[i] = digits[count - 1 - i];
  uart3_write(text, static_cast<uint64_t>(count));
}

// One file: its RAM node's bytes, or the initrd's.
void send_file(const char* path) {
  const ramfs::Found found = ramfs::lookup(path);
  const bool directory = found.exists && ((found.node ? ramfs::mode(found.node) : found.file.mode) &
                                          0170000) == 0040000;
  if (!found.exists || directory) {
    write_text("dcpi-output-missing ");
    write_text(path);
    write_text("\n");
    return;
  }
  const uint64_t size = found.node ? ramfs::size(found.node) : found.file.size;
  write_text("dcpi-output-begin ");
  write_decimal(size);
  write_text(" ");
  write_text(path);
  write_text("\n");
  static const char kHex[] = "0123456789abcdef";
  for (uint64_t offset = 0; offset < size; offset += kBytesPerLine) {
    uint8_t bytes[kBytesPerLine];
    uint64_t n = size - offset < kBytesPerLine ? size - offset : kBytesPerLine;
    if (found.node)
      n = ramfs::read(found.node, offset, bytes, n);
    else
      __builtin_memcpy(bytes, found.file.data + offset, n);
    char line[17 + 2 * kBytesPerLine + 1] = "dcpi-output-data ";
    for (uint64_t i = 0; i < n; ++i) {
      line[17 + 2 * i] = kHex[bytes[i] >> 4];
      line[18 + 2 * i] = kHex[bytes[i] & 15];
    }
    line[17 + 2 * n] = '\n';
    uart3_write(line, 18 + 2 * n);
  }
  write_text("dcpi-output-end\n");
}

}  // namespace

void set_paths(const char* value, uint64_t length) {
  uint64_t n = 0;
  for (; n < length && n + 1 < kPathsBytes; ++n) paths[n] = value[n];
  paths[n] = 0;
}

void send() {
  char path[kPathsBytes];
  uint64_t start = 0;
  for (uint64_t i = 0;; ++i) {
    if (paths[i] != ',' && paths[i] != 0) continue;
    if (i > start) {
      copy_name(path, i - start + 1, paths + start);
      send_file(path);
    }
    if (paths[i] == 0) return;
    start = i + 1;
  }
}

}  // namespace kernel::host_output
