// The table is generated at build time from the cross sysroot's
// asm/unistd_32.h (kernel/gen_syscall_names.py), sorted by number.
#include "kernel/syscall_names.h"

namespace kernel::sys {
namespace {

struct Name {
  uint16_t number;
  const char* name;
};

constexpr Name kNames[] = {
#include "syscall_names.inc"
};

}  // namespace

const char* syscall_name(uint64_t number) {
  uint64_t low = 0, high = sizeof kNames / sizeof kNames[0];
  while (low < high) {  // binary search: the table is sorted by number
    const uint64_t middle = (low + high) / 2;
    if (kNames[middle].number == number) return kNames[middle].name;
    if (kNames[middle].number < number)
      low = middle + 1;
    else
      high = middle;
  }
  return "?";
}

}  // namespace kernel::sys
