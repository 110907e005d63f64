// A RAM file system over the initrd (issue 29): files created or written
// (a file of the initrd is copied up into RAM when opened for writing),
// directories made, and whiteouts for initrd names that were removed or
// renamed away. Names are whole paths relative to "/" ("tmp/out.txt"); a
// RAM entry hides the initrd's of the same name. Data lives in contiguous
// KSEG pages, grown by copying. Everything under one lock; nothing here
// touches user memory.
#pragma once
#include <cstdint>

#include "kernel/initrd.h"

namespace kernel::ramfs {

struct Node;

// What a path names: a RAM node, an initrd entry, or nothing (ENOENT,
// also for a whiteout).
struct Found {
  Node* node;         // nullptr: not in RAM
  initrd::File file;  // the initrd's entry when node == nullptr
  bool exists;
};
Found lookup(const char* path);

// A RAM node for `path` to write: the existing one, a copy of the initrd's
// file, or (with `create`) a new empty file whose directory exists. 0 and
// *node, or a positive errno (ENOENT, EISDIR, EEXIST with `exclusive`,
// ENOTDIR, ENOSPC, ENOMEM).
int open_for_write(const char* path, bool create, bool exclusive, Node** node);
int make_directory(const char* path);
// unlink (directory = false) or rmdir (true).
int remove(const char* path, bool directory);
int rename(const char* from, const char* to);
// link(2): `to` becomes another name of the file `from` (one of the initrd
// is copied up first); EEXIST, ENOENT, EPERM for a directory, ENOSPC.
int link(const char* from, const char* to);
// symlink(2): a symbolic link `path` whose data is `target` (kept as
// written, resolved at each use: kernel/path_walk.h); EEXIST, ENOENT (no
// directory), ENOSPC, ENOMEM.
int make_symbolic_link(const char* path, const char* target);
// The target of the symbolic link `path` names (not followed) into `to`
// (capacity bytes, NUL-terminated); its length, or -1 if `path` is not a
// symbolic link. Cheap while there are none (every path walk asks).
int64_t link_target(const char* path, char* to, uint64_t capacity);
// mknod(2) of a FIFO or a regular file: an empty node of `mode` (type and
// permissions); EEXIST, ENOENT, ENOSPC.
int make_node(const char* path, uint32_t mode);
// How many names the file has (stat's st_nlink).
uint32_t names(const Node* node);

// Open descriptions hold a node (an unlinked node lives until its last close).
void hold(Node* node);
void release(Node* node);

// fchmod: the permission bits (the type stays).
void set_permissions(Node* node, uint32_t permissions);
// utimensat: atime (seconds, ns) and mtime as chosen; stat reports them.
void set_times(Node* node, const uint64_t (&times)[4], bool access, bool modification);
void get_times(const Node* node, uint64_t (&times)[6]);  // atime, mtime, ctime (s, ns)

uint64_t size(const Node* node);
// statfs: how many nodes the file system has room for, and how many are free.
uint64_t node_capacity();
uint64_t free_nodes();
uint32_t mode(const Node* node);
uint64_t inode(const Node* node);
// Copies out up to `count` bytes from `offset` into `to` (a kernel buffer);
// the number copied.
uint64_t read(const Node* node, uint64_t offset, void* to, uint64_t count);
// Writes `count` bytes of `from` at `offset`, growing the file; false when
// out of memory.
bool write(Node* node, uint64_t offset, const void* from, uint64_t count);
bool truncate(Node* node, uint64_t length);
// *page <- the page of the file's data holding byte `offset`, with a
// reference taken for a shared mapping (pages::add_reference; unmapping
// drops it), or 0 at or past the end of the file. Stores and write()s meet
// in it until the file grows past its pages, which moves the data
// (docs/linux-programs.md). False when the page has no reference left.
bool share_page(Node* node, uint64_t offset, uint64_t* page);

// Directory listing: the names directly under `directory` (a path as for
// lookup), RAM and initrd merged; entry `index` (0, 1, ...) into `name`
// with its mode, false past the end.
bool list(const char* directory, uint64_t index, char* name, uint64_t capacity, uint32_t* mode);

}  // namespace kernel::ramfs
