// The parts of a process that clone() may share between threads (Linux's
// mm_struct, files_struct and signal_struct/sighand_struct, much reduced):
// fixed pools, reference counted. `create` starts a part with one user,
// `copy` duplicates one for fork (an eager copy of every user page: the page
// allocator keeps no per-page reference counts, so copy-on-write would need
// them first), `hold` adds a user and `release` drops one, freeing the part
// with its last user. Safe from any context (an IPL-7 lock of their own,
// never held while taking another).
#pragma once
#include "kernel/process.h"

namespace kernel::parts {

Mm* mm_create();        // an empty address space; nullptr when out of memory
Mm* mm_copy(Mm* from);  // fork: every page copied; nullptr when out of memory
void mm_hold(Mm* mm);
void mm_release(Mm* mm);  // the last user frees the address space

FdTable* fds_create();             // fds 0-2 on the console
FdTable* fds_copy(FdTable* from);  // the descriptions are shared (fork)
void fds_hold(FdTable* fds);
void fds_release(FdTable* fds);  // the last user closes every descriptor

ThreadGroup* group_create();                       // default dispositions, one thread
ThreadGroup* group_copy(const ThreadGroup* from);  // fork: the dispositions
void group_hold(ThreadGroup* group);
void group_release(ThreadGroup* group);

}  // namespace kernel::parts
