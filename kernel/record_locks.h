// POSIX record locks (fcntl F_GETLK, F_SETLK, F_SETLKW; issue 29: sqlite3
// locks its database and journal with them). Advisory byte ranges per
// process (thread group), on a file identified by what its descriptions
// share (the RAM node, or the initrd file's data); a process's locks on a
// file go when it closes any descriptor of that file or exits (POSIX's
// rule, as Linux). One table for the machine, under one lock.
#pragma once
#include <cstdint>

namespace kernel::locks {

// Linux/Alpha's l_type values (asm/fcntl.h).
inline constexpr uint16_t kRead = 1, kWrite = 2, kUnlock = 8;
inline constexpr uint64_t kToEnd = ~uint64_t{0};  // a range "until the end of the file"

// A lock over bytes [start, end) (end kToEnd: to any length).
struct Range {
  uint16_t type;
  uint64_t start, end;
  uint32_t owner;  // the tgid holding it
};

// The first lock of another owner that conflicts with `wanted` (a write
// lock conflicts with any, a read lock with a write lock); false if none.
bool find_conflict(const void* file, const Range& wanted, Range* found);
// Sets (or, with kUnlock, removes) `wanted` for its owner, replacing the
// parts of its own locks the range covers. 0, EAGAIN on a conflict, or
// ENOLCK when the table is full.
int set(const void* file, const Range& wanted);
// Every lock `owner` holds on `file` (a close), or on any file (nullptr: exit).
void release(const void* file, uint32_t owner);

}  // namespace kernel::locks
