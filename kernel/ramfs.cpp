#include "kernel/ramfs.h"

#include "firmware/newc.h"
#include "kernel/clock.h"
#include "kernel/linux_errno.h"
#include "kernel/page_alloc.h"
#include "kernel/spinlock.h"
#include "kernel/text.h"

namespace kernel::ramfs {

inline constexpr uint64_t kNameMax = 256;

struct Node {
  char name[kNameMax];  // relative to "/"; "" once unlinked
  uint32_t mode;        // 0: a free slot
  bool whiteout;        // hides the initrd's entry of this name
  // A hard link: another name of `target`'s file (no data of its own);
  // `links` counts a file's other names, which keep it after its own goes.
  Node* target;
  uint32_t links;
  uint32_t opens;
  uint64_t data;  // KSEG, `pages` pages
  uint64_t pages, size;
  uint64_t times[6];  // atime, mtime, ctime: seconds, ns (the wall clock's)
};

namespace {

constexpr uint32_t kNodes = 256;  // files, directories and whiteouts
constexpr uint32_t kModeFile = 0100644, kModeDirectory = 0040755, kTypeMask = 0170000,
                   kTypeDirectory = 0040000, kModeSymbolicLink = 0120777;
Node nodes[kNodes];
// Held at the caller's IPL, not IPL 7 as the scheduler's locks are: it is
// taken only by system calls (and init's exit, for host_output), which the
// tick does not preempt in the kernel (kernel/README.md), never by a
// handler or a kernel thread. Under QEMU the counter's clock interrupt waits
// at IPL 5 and above, so file data copied at IPL 7 was sampling's blind
// spot: its samples landed after the swpipl back down (docs/calc.md).
SpinLock lock;
// Nodes that are symbolic links (or hard links to one): while there are
// none, a path walk's question per component costs no lock and no scan.
uint32_t symbolic_links = 0;

bool is_symbolic_link(uint32_t mode) {
  return (mode & kTypeMask) == (kModeSymbolicLink & kTypeMask);
}

// Names are relative to "/": leading "/" and "./" go, and "." is "".
const char* strip(const char* path) {
  for (;;) {
    if (path[0] == '/')
      ++path;
    else if (path[0] == '.' && path[1] == '/')
      path += 2;
    else if (path[0] == '.' && path[1] == 0)
      return path + 1;
    else
      return path;
  }
}

// The node holding the file's data: a hard link's target, else itself.
Node* file_of(Node* n) { return n->target ? n->target : n; }

// A file with no name, no other name and no open description goes.
void free_if_unused_locked(Node* n);

Node* find_locked(const char* name) {
  for (Node& n : nodes)
    if (n.mode != 0 && n.name[0] != 0 && same_string(n.name, name)) return &n;
  return nullptr;
}

// The length of `name`'s directory part ("a/b" of "a/b/c", 0 for "c").
uint64_t parent_length(const char* name) {
  uint64_t slash = 0;
  for (uint64_t i = 0; name[i]; ++i)
    if (name[i] == '/') slash = i;
  return slash;
}

bool has_prefix_dir(const char* name, const char* dir, uint64_t dir_length) {
  for (uint64_t i = 0; i < dir_length; ++i)
    if (name[i] != dir[i]) return false;
  return name[dir_length] == '/';
}

bool is_directory(uint32_t mode) { return (mode & kTypeMask) == kTypeDirectory; }

Found lookup_locked(const char* name) {
  if (Node* n = find_locked(name)) return n->whiteout ? Found{} : Found{file_of(n), {}, true};
  Found found{nullptr, {}, false};
  found.exists = initrd::lookup(name, &found.file);
  if (!found.exists) {  // an archive may list files without their directories
    const char* entry_name;
    initrd::File file;
    const uint64_t length = string_length(name);
    for (uint64_t i = 0; initrd::entry(i, &entry_name, &file); ++i)
      if (has_prefix_dir(entry_name, name, length)) {
        found = Found{nullptr, initrd::File{nullptr, 0, kModeDirectory}, true};
        break;
      }
  }
  return found;
}

// True if the directory part of `name` names a directory.
bool parent_exists_locked(const char* name) {
  const uint64_t length = parent_length(name);
  if (length == 0) return true;
  char parent[kNameMax];
  copy_name(parent, length + 1, name);
  const Found found = lookup_locked(parent);
  const uint32_t mode = found.node ? found.node->mode : found.file.mode;
  return found.exists && is_directory(mode);
}

// Sets times `first`, `first + 2`, ... (0: atime, 2: mtime, 4: ctime) to now.
void touch_locked(Node* n, int first) {
  uint64_t now[2];
  clock::to_timespec(clock::realtime_cycles(), now);
  for (int i = first; i < 6; i += 2) n->times[i] = now[0], n->times[i + 1] = now[1];
}

Node* allocate_locked(const char* name, uint32_t mode) {
  if (string_length(name) >= kNameMax) return nullptr;
  for (Node& n : nodes) {
    if (n.mode != 0) continue;
    n = Node{};
    copy_name(n.name, kNameMax, name);
    n.mode = mode;
    touch_locked(&n, 0);  // born now: every time
    return &n;
  }
  return nullptr;
}

void free_locked(Node* n) {
  if (n->data) pages::release(n->data, n->pages);
  if (is_symbolic_link(n->mode)) __atomic_sub_fetch(&symbolic_links, 1, __ATOMIC_RELAXED);
  n->mode = 0;
}

void free_if_unused_locked(Node* n) {
  if (n->name[0] == 0 && n->links == 0 && n->opens == 0) free_locked(n);
}

bool reserve(Node* n, uint64_t bytes) {
  if (bytes <= n->pages * pages::kPageBytes) return true;
  const uint64_t wanted = (bytes + pages::kPageBytes - 1) >> pages::kPageShift;
  const uint64_t count = wanted > 2 * n->pages ? wanted : 2 * n->pages;
  const uint64_t data = pages::allocate(count);
  if (data == 0) return false;
  if (n->data) {
    __builtin_memcpy(reinterpret_cast<void*>(data), reinterpret_cast<void*>(n->data), n->size);
    pages::release(n->data, n->pages);
  }
  n->data = data;
  n->pages = count;
  return true;
}

// Removes `name` from the view: a RAM node goes (or waits for its last
// close), an initrd entry gets a whiteout.
bool hide_locked(const char* name, bool in_initrd) {
  Node* n = find_locked(name);
  if (n != nullptr && !n->whiteout) {
    Node* file = n->target;
    n->name[0] = 0;
    if (file != nullptr) {  // one name of a file with others: the name goes
      --file->links;
      free_locked(n);
      free_if_unused_locked(file);
    } else {
      free_if_unused_locked(n);
    }
    n = nullptr;
  }
  if (!in_initrd || n != nullptr) return true;
  Node* whiteout = allocate_locked(name, kModeFile);
  if (whiteout == nullptr) return false;
  whiteout->whiteout = true;
  return true;
}

bool empty_directory_locked(const char* name) {
  const uint64_t length = string_length(name);
  for (const Node& n : nodes)
    if (n.mode && !n.whiteout && n.name[0] && has_prefix_dir(n.name, name, length)) return false;
  const char* entry_name;
  initrd::File file;
  for (uint64_t i = 0; initrd::entry(i, &entry_name, &file); ++i)
    if (has_prefix_dir(entry_name, name, length) && lookup_locked(entry_name).exists) return false;
  return true;
}

bool in_initrd(const char* name) {
  initrd::File file;
  return initrd::lookup(name, &file);
}

// A directory made in RAM is renamed with everything under it (every
// entry under it is a RAM node: mkdir refuses a name the initrd shows). One of
// the initrd is EXDEV, as overlayfs answers for a lower-layer directory
// (without redirect_dir), and `mv` copies then. The target may be an empty
// directory (replaced), not a file (ENOTDIR) nor inside the source (EINVAL).
int rename_directory(const char* from, const char* to) {
  if (*from == 0 || *to == 0) return EBUSY;  // "/"
  LockGuard guard(lock);
  Node* dir = find_locked(from);
  if (dir == nullptr || dir->whiteout) return EXDEV;  // the initrd's
  const uint64_t from_length = string_length(from), to_length = string_length(to);
  if (same_string(from, to)) return 0;
  if (has_prefix_dir(to, from, from_length)) return EINVAL;
  if (!parent_exists_locked(to)) return ENOENT;
  if (const Found target = lookup_locked(to); target.exists) {
    if (!is_directory(target.node ? target.node->mode : target.file.mode)) return ENOTDIR;
    if (!empty_directory_locked(to)) return ENOTEMPTY;
    if (target.node == nullptr) return EXDEV;  // an initrd directory is not replaced
    hide_locked(to, false);
  }
  for (const Node& m : nodes)  // every new name fits before anything changes
    if (m.mode && m.name[0] && (&m == dir || has_prefix_dir(m.name, from, from_length)) &&
        string_length(m.name) - from_length + to_length >= kNameMax)
      return ENAMETOOLONG;
  // A directory made where the initrd had one that was removed: the old name
  // keeps hiding the initrd's (its entries keep their own whiteouts).
  Node* hide = in_initrd(from) ? allocate_locked("", kModeDirectory) : nullptr;
  if (in_initrd(from) && hide == nullptr) return ENOSPC;
  for (Node& m : nodes) {
    if (m.mode == 0 || m.whiteout || m.name[0] == 0 ||
        (&m != dir && !has_prefix_dir(m.name, from, from_length)))
      continue;
    char renamed[kNameMax];
    copy_name(renamed, kNameMax, to);
    copy_name(renamed + to_length, kNameMax - to_length, m.name + from_length);
    for (Node& w : nodes)  // a whiteout of the new name is not needed any more
      if (w.mode && w.whiteout && same_string(w.name, renamed)) free_locked(&w);
    copy_name(m.name, kNameMax, renamed);
  }
  if (hide != nullptr) {
    copy_name(hide->name, kNameMax, from);
    hide->whiteout = true;
  }
  return 0;
}

// A new node `name` of `mode` where nothing is (a whiteout is reused).
int make_locked(const char* name, uint32_t mode, Node** made) {
  if (*name == 0 || lookup_locked(name).exists) return EEXIST;
  if (!parent_exists_locked(name)) return ENOENT;
  Node* n = find_locked(name);
  if (n == nullptr) n = allocate_locked(name, mode);
  if (n == nullptr) return ENOSPC;
  n->whiteout = false;
  n->mode = mode;
  *made = n;
  return 0;
}

}  // namespace

Found lookup(const char* path) {
  LockGuard guard(lock);
  return lookup_locked(strip(path));
}

int open_for_write(const char* path, bool create, bool exclusive, Node** out) {
  const char* name = strip(path);
  LockGuard guard(lock);
  const Found found = lookup_locked(name);
  if (found.exists && exclusive && create) return EEXIST;
  if (found.node) {
    if (is_directory(found.node->mode)) return EISDIR;
    *out = found.node;
    return 0;
  }
  if (found.exists && is_directory(found.file.mode)) return EISDIR;
  if (!found.exists && !create) return ENOENT;
  if (!found.exists && !parent_exists_locked(name)) return ENOENT;
  Node* n = find_locked(name);  // a whiteout is reused
  if (n == nullptr) n = allocate_locked(name, kModeFile);
  if (n == nullptr) return ENOSPC;
  n->whiteout = false;
  n->mode = kModeFile;
  if (found.exists) {  // copy the initrd's file up
    if (!reserve(n, found.file.size)) {
      free_locked(n);
      return ENOMEM;
    }
    __builtin_memcpy(reinterpret_cast<void*>(n->data), found.file.data, found.file.size);
    n->size = found.file.size;
  }
  *out = n;
  return 0;
}

int make_directory(const char* path) { return make_node(path, kModeDirectory); }

int remove(const char* path, bool directory) {
  const char* name = strip(path);
  LockGuard guard(lock);
  const Found found = lookup_locked(name);
  if (!found.exists) return ENOENT;
  const uint32_t mode = found.node ? found.node->mode : found.file.mode;
  if (directory != is_directory(mode)) return directory ? ENOTDIR : EISDIR;
  if (directory && !empty_directory_locked(name)) return ENOTEMPTY;
  return hide_locked(name, in_initrd(name)) ? 0 : ENOSPC;
}

int rename(const char* from_path, const char* to_path) {
  const char* from = strip(from_path);
  const char* to = strip(to_path);
  Node* n = nullptr;
  if (int e = open_for_write(from, false, false, &n); e != 0)
    return e == EISDIR ? rename_directory(from, to) : e;
  LockGuard guard(lock);
  if (same_string(from, to)) return 0;
  if (!parent_exists_locked(to)) return ENOENT;
  const Found target = lookup_locked(to);
  if (target.exists && is_directory(target.node ? target.node->mode : target.file.mode))
    return EISDIR;
  if (target.node == n) return 0;              // two names of one file: nothing changes (POSIX)
  Node* named = find_locked(from);             // the name moves, be it the file's own or a link
  if (!hide_locked(to, false)) return ENOSPC;  // the old target goes
  Node* whiteout = find_locked(to);            // a whiteout of the target's name is reused
  if (whiteout != nullptr) free_locked(whiteout);
  copy_name(named->name, kNameMax, to);
  if (in_initrd(from)) {  // the source's initrd entry stays hidden
    Node* hide = allocate_locked(from, kModeFile);
    if (hide == nullptr) return ENOSPC;
    hide->whiteout = true;
  }
  return 0;  // a node named `to` hides an initrd entry of that name
}

void hold(Node* n) {
  LockGuard guard(lock);
  ++n->opens;
}

void release(Node* n) {
  LockGuard guard(lock);
  --n->opens;
  free_if_unused_locked(n);  // unlinked while open
}

int link(const char* from_path, const char* to_path) {
  Node* file = nullptr;  // an initrd file is copied up, as overlayfs does
  if (int e = open_for_write(from_path, false, false, &file); e != 0)
    return e == EISDIR ? EPERM : e;  // no hard links to directories
  const char* to = strip(to_path);
  LockGuard guard(lock);
  if (lookup_locked(to).exists) return EEXIST;
  if (!parent_exists_locked(to)) return ENOENT;
  Node* name = find_locked(to);  // a whiteout of the name is reused
  if (name == nullptr) name = allocate_locked(to, kModeFile);
  if (name == nullptr) return ENOSPC;
  name->whiteout = false;
  name->mode = file->mode;
  name->target = file;
  ++file->links;
  // linkat without AT_SYMLINK_FOLLOW links a symbolic link itself (Linux).
  if (is_symbolic_link(file->mode)) __atomic_add_fetch(&symbolic_links, 1, __ATOMIC_RELAXED);
  return 0;
}

int make_symbolic_link(const char* path, const char* target) {
  const char* name = strip(path);
  LockGuard guard(lock);
  Node* n;
  if (const int e = make_locked(name, kModeSymbolicLink, &n)) return e;
  const uint64_t length = string_length(target);
  if (!reserve(n, length)) {  // not counted as a link yet
    n->mode = kModeFile;
    n->whiteout = in_initrd(name);  // a reused whiteout goes on hiding
    if (!n->whiteout) free_locked(n);
    return ENOMEM;
  }
  __builtin_memcpy(reinterpret_cast<void*>(n->data), target, length);
  n->size = length;
  __atomic_add_fetch(&symbolic_links, 1, __ATOMIC_RELAXED);
  return 0;
}

int64_t link_target(const char* path, char* to, uint64_t capacity) {
  if (__atomic_load_n(&symbolic_links, __ATOMIC_RELAXED) == 0) return -1;
  const char* name = strip(path);
  LockGuard guard(lock);
  Node* n = find_locked(name);
  if (n == nullptr || n->whiteout || !is_symbolic_link(n->mode)) return -1;
  const Node* file = file_of(n);
  const uint64_t length = file->size < capacity ? file->size : capacity - 1;
  __builtin_memcpy(to, reinterpret_cast<const void*>(file->data), length);
  to[length] = 0;
  return static_cast<int64_t>(length);
}

int make_node(const char* path, uint32_t mode) {
  const char* name = strip(path);
  LockGuard guard(lock);
  Node* n;
  return make_locked(name, mode, &n);
}

uint32_t names(const Node* n) { return (n->name[0] != 0) + n->links; }

void set_permissions(Node* n, uint32_t permissions) {
  LockGuard guard(lock);
  n->mode = (n->mode & kTypeMask) | (permissions & 07777);
}

void set_times(Node* n, const uint64_t (&times)[4], bool access, bool modification) {
  LockGuard guard(lock);
  if (access) n->times[0] = times[0], n->times[1] = times[1];
  if (modification) n->times[2] = times[2], n->times[3] = times[3];
  touch_locked(n, 4);  // a status change
}

void get_times(const Node* n, uint64_t (&times)[6]) {
  LockGuard guard(lock);
  for (int i = 0; i < 6; ++i) times[i] = n->times[i];
}

uint64_t size(const Node* n) { return n->size; }
uint32_t mode(const Node* n) { return n->mode; }
uint64_t node_capacity() { return kNodes; }

uint64_t free_nodes() {
  LockGuard guard(lock);
  uint64_t free = 0;
  for (const Node& n : nodes) free += n.mode == 0;
  return free;
}

uint64_t inode(const Node* n) { return 0x10000 + static_cast<uint64_t>(n - nodes); }

uint64_t read(const Node* n, uint64_t offset, void* to, uint64_t count) {
  LockGuard guard(lock);
  if (offset >= n->size) return 0;
  if (count > n->size - offset) count = n->size - offset;
  __builtin_memcpy(to, reinterpret_cast<const void*>(n->data + offset), count);
  return count;
}

bool write(Node* n, uint64_t offset, const void* from, uint64_t count) {
  LockGuard guard(lock);
  if (offset + count < offset || !reserve(n, offset + count)) return false;
  if (offset > n->size)  // a hole reads as zeroes
    __builtin_memset(reinterpret_cast<void*>(n->data + n->size), 0, offset - n->size);
  __builtin_memcpy(reinterpret_cast<void*>(n->data + offset), from, count);
  if (offset + count > n->size) n->size = offset + count;
  touch_locked(n, 2);  // modified: mtime and ctime
  return true;
}

bool truncate(Node* n, uint64_t length) {
  LockGuard guard(lock);
  if (length > n->size) {
    if (!reserve(n, length)) return false;
    __builtin_memset(reinterpret_cast<void*>(n->data + n->size), 0, length - n->size);
  }
  n->size = length;
  touch_locked(n, 2);
  return true;
}

bool share_page(Node* n, uint64_t offset, uint64_t* page) {
  LockGuard guard(lock);
  *page = 0;
  if (offset >= n->size) return true;
  *page = n->data + (offset & ~(pages::kPageBytes - 1));
  return pages::add_reference(*page);
}

bool list(const char* directory, uint64_t index, char* name, uint64_t capacity, uint32_t* mode) {
  const char* dir = strip(directory);
  const uint64_t length = string_length(dir);
  LockGuard guard(lock);
  auto child = [&](const char* entry) -> const char* {  // the name under dir, if directly
    if (length == 0)
      return parent_length(entry) == 0 && entry[0] && entry[0] != '/' ? entry : nullptr;
    if (!has_prefix_dir(entry, dir, length) || parent_length(entry) != length) return nullptr;
    return entry + length + 1;
  };
  uint64_t seen = 0;
  for (const Node& n : nodes) {
    if (n.mode == 0 || n.whiteout || n.name[0] == 0) continue;
    const char* leaf = child(n.name);
    if (leaf == nullptr || seen++ != index) continue;
    copy_name(name, capacity, leaf);
    *mode = n.target ? n.target->mode : n.mode;
    return true;
  }
  const char* entry_name;
  initrd::File file;
  for (uint64_t i = 0; initrd::entry(i, &entry_name, &file); ++i) {
    const char* leaf = child(entry_name);
    if (leaf == nullptr || *leaf == 0 || find_locked(entry_name) != nullptr) continue;
    if (seen++ != index) continue;
    copy_name(name, capacity, leaf);
    *mode = file.mode;
    return true;
  }
  return false;
}

}  // namespace kernel::ramfs
