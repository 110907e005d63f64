// The few files of /proc and /sys that glibc and programs read to learn
// about their machine and themselves: /proc/cpuinfo, /proc/meminfo,
// /proc/self/maps (pthread_getattr_np of the main thread finds its stack
// there), /proc/self/status, /sys/devices/system/cpu/{online,possible,
// present}. Each is made when opened (a snapshot, as a seq_file read in one
// go), in pages the description holds until its last close.
#pragma once
#include <cstdint>

#include "kernel/process.h"

namespace kernel::procfs {

// True when `path` (absolute, normalized) is one of these files.
bool provides(const char* path);
// The text of `path` for `self`, in fresh KSEG pages (*data, *pages_held;
// release with pages::release), *size bytes of it. False when out of memory.
bool make(Process* self, const char* path, uint64_t* data, uint64_t* pages_held, uint64_t* size);

}  // namespace kernel::procfs
