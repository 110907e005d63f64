// Descriptor tables (FdTable, kernel/process.h): the operations every file
// call and execve share. Open files are values in the table (an fd's offset
// is its own; dup copies it).
#pragma once
#include <cstdint>

#include "kernel/process.h"

namespace kernel {

// The open file at `fd`, or nullptr if none.
OpenFile* file_at(FdTable* fds, uint64_t fd);
// Puts `file` at the lowest free fd >= `lowest`; the fd or -EMFILE.
int64_t install_file(FdTable* fds, uint64_t lowest, const OpenFile& file, bool cloexec);
// Puts `file` at exactly `fd` (closing what was there): dup2/dup3.
void install_file_at(FdTable* fds, uint64_t fd, const OpenFile& file, bool cloexec);
void close_file(FdTable* fds, uint64_t fd);

}  // namespace kernel
