// /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N: on
// Linux links to the descriptor's open file (/proc's "magic links", udev's
// /dev/std* links to them), which open() opens again and stat() describes.
// Programs and scripts write to "/dev/stderr" by name; this kernel has no
// /proc or /dev directories, so the names are recognized whole.
#pragma once
#include <cstdint>

#include "kernel/process.h"

namespace kernel::fd_links {

// The descriptor `path` (absolute, normalized) names; -1 if none.
int64_t descriptor_named(const char* path);

// open(2) of a descriptor's link: a RAM file is opened again (its own
// offset and flags, O_TRUNC honoured, as Linux reopens the inode), the
// console as a new description of the same stream; a pipe, socket, device
// or other file shares the descriptor's description (Linux opens a pipe's
// FIFO anew; its ends and data are the same). ENOENT if `fd` is not open.
int64_t reopen(Process* self, int64_t fd, uint64_t flags, const char* path);

// readlink(2) of /proc/self/fd/N (or /dev/fd/N): what Linux names the
// file: its path as opened, "/dev/ttyS0" for the console (a serial line),
// "pipe:[N]", "socket:[N]", "anon_inode:[eventfd]" and the like; /dev/std*
// name their /proc/self/fd link (udev's links). The target's length, or
// -ENOENT when `path` is none of these or the descriptor is not open.
int64_t link_target(Process* self, const char* path, char* target, uint64_t capacity);

}  // namespace kernel::fd_links
