// flock(2) locks (BSD's, apart from POSIX record locks: kernel/record_locks.h,
// as on Linux): one lock per open file description, shared or exclusive, on
// the whole file; another description of the same file (even in the same
// process, through a second open) conflicts, a dup or a fork child shares
// the description's lock. It goes with LOCK_UN or the description's last
// close. One table for the machine, under one lock.
#pragma once
#include <cstdint>

namespace kernel::flocks {

// Linux's LOCK_SH, LOCK_EX, LOCK_NB, LOCK_UN (asm-generic/fcntl.h).
inline constexpr uint64_t kShared = 1, kExclusive = 2, kNonBlocking = 4, kUnlock = 8;

// Takes (or converts to) `type` (kShared or kExclusive) for `holder` on
// `file`: 0, EAGAIN while another description holds a conflicting lock, or
// ENOLCK when the table is full.
int take(const void* file, const void* holder, uint64_t type);
// Drops `holder`'s lock, if any (LOCK_UN, or the description's last close).
void drop(const void* holder);

}  // namespace kernel::flocks
