// The calls that copy between descriptors inside the kernel, as Linux's
// splice machinery does (fs/splice.c, fs/read_write.c): sendfile,
// copy_file_range, splice and tee.
//
// Bytes from a file go through one page-sized buffer per CPU, never user
// memory. A system call keeps its CPU until it sleeps or returns
// (kernel/README.md, "Scheduling"), and no copy here sleeps while that
// buffer holds bytes: a wait for a pipe's room or data comes before a chunk
// is read, a chunk is read from a file at an offset and whatever of it does
// not fit in a pipe is left in the file (the offsets move by what was
// written). Between two pipes (sockets are pipes too, kernel/socket_end.h)
// the bytes move ring to ring under the pipes' lock (pipe::move).
#include "kernel/clock.h"
#include "kernel/console.h"
#include "kernel/files.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/page_alloc.h"
#include "kernel/palcalls.h"
#include "kernel/pipe.h"
#include "kernel/ramfs.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"
#include "kernel/smp.h"
#include "kernel/syscall_handlers.h"

namespace kernel::sys {
namespace {

// Linux's MAX_RW_COUNT (INT_MAX & PAGE_MASK) as qemu-alpha's host has it
// (4 KB pages; Linux/Alpha's 8 KB pages would make it 0x7fffe000).
constexpr uint64_t kMaxRwCount = 0x7ffff000;
constexpr uint64_t kSpliceNonblock = 0x2, kSpliceAll = 0xf;  // SPLICE_F_*
constexpr uint64_t kBounceBytes = pages::kPageBytes;
constexpr uint64_t kConsoleChunk = 256;  // at IPL 7 no longer than write(2) is
constexpr uint32_t kShutRead = 1, kShutWrite = 2;
constexpr int kSigPipe = 13;
constexpr uint32_t kModeTypeMask = 0170000, kModeRegular = 0100000;

// One CPU's buffer, held for one chunk (never across a sleep).
struct alignas(64) CpuBuffer {
  char data[kBounceBytes];
  bool busy;
};
CpuBuffer buffers[smp::kMaxCpus];

class Bounce {
 public:
  Bounce() : buffer_(buffers[pal::whami()]) {
    if (buffer_.busy)
      panic("sys_copy: CPU %u's copy buffer taken twice", static_cast<unsigned>(pal::whami()));
    buffer_.busy = true;
  }
  ~Bounce() { buffer_.busy = false; }
  Bounce(const Bounce&) = delete;
  Bounce& operator=(const Bounce&) = delete;
  char* data() { return buffer_.data; }

 private:
  CpuBuffer& buffer_;
};

uint64_t smaller(uint64_t a, uint64_t b) { return a < b ? a : b; }

// Linux's FMODE_READ and FMODE_WRITE of a description.
bool readable(const OpenFile* f) {
  if (f->kind == OpenFile::kPipeWrite) return false;
  if (f->kind == OpenFile::kRamFile || f->kind == OpenFile::kNull)
    return (f->flags & LINUX_O_ACCMODE) != LINUX_O_WRONLY;
  return true;
}

bool writable(const OpenFile* f) {
  switch (f->kind) {
    case OpenFile::kPipeRead:
      return writes_fifo(f);
    case OpenFile::kRamFile:
    case OpenFile::kNull:
      return (f->flags & LINUX_O_ACCMODE) != 0;
    case OpenFile::kInitrd:
    case OpenFile::kGenerated:
    case OpenFile::kDirectory:
    case OpenFile::kNone:
      return false;
    default:  // the console, pipe write ends, sockets, the anonymous files
      return true;
  }
}

// Linux's get_pipe_info: the pipe of a pipe or FIFO, either end (sockets
// are not pipes there).
Pipe* pipe_of(const OpenFile* f) {
  return f->kind == OpenFile::kPipeRead || f->kind == OpenFile::kPipeWrite ? f->pipe : nullptr;
}

// Files with data at offsets (Linux's regular files): RAM and initrd files,
// /proc and /sys texts.
bool regular(const OpenFile* f) {
  if (f->kind == OpenFile::kRamFile) return (ramfs::mode(f->node) & kModeTypeMask) == kModeRegular;
  return f->kind == OpenFile::kInitrd || f->kind == OpenFile::kGenerated;
}

// What Linux can splice from (a splice_read): regular files, /dev/zero,
// /dev/random and /dev/urandom, the console (a terminal), a socket; not a
// pipe, /dev/null, a directory or the anonymous files (EINVAL).
bool splice_source(const OpenFile* f) {
  if (f->kind == OpenFile::kNull) return f->device != kDevNull;
  return regular(f) || f->kind == OpenFile::kConsole || f->kind == OpenFile::kSocket;
}

bool nonblocking(const OpenFile* f) { return f->flags & LINUX_O_NONBLOCK; }

// Reads up to `count` bytes of a splice source other than a socket at
// `offset` into kernel memory: the number (0 at the end).
uint64_t read_chunk(const OpenFile* in, uint64_t offset, char* to, uint64_t count) {
  if (in->kind == OpenFile::kRamFile) return ramfs::read(in->node, offset, to, count);
  if (in->kind == OpenFile::kConsole) return 0;  // as read(2) of it here: end of file
  if (in->kind == OpenFile::kNull) {             // /dev/zero, /dev/random, /dev/urandom
    for (uint64_t done = 0; done < count; done += 8) {
      const uint64_t word = in->device == kDevZero ? 0 : clock::random_word();
      __builtin_memcpy(to + done, &word, smaller(8, count - done));
    }
    return count;
  }
  if (offset >= in->file.size) return 0;  // an initrd file, a /proc text
  count = smaller(count, in->file.size - offset);
  __builtin_memcpy(to, in->file.data + offset, count);
  return count;
}

// Writes `count` bytes of kernel memory to an output that never waits (a
// RAM file at `offset`, the console, a memory device): the number, or
// -ENOSPC, or -EINVAL for an output Linux cannot splice to (no
// splice_write: the anonymous files).
int64_t write_chunk(Process* self, OpenFile* out, uint64_t offset, const char* from,
                    uint64_t count) {
  switch (out->kind) {
    case OpenFile::kRamFile:
      return ramfs::write(out->node, offset, from, count) ? static_cast<int64_t>(count)
                                                          : error(ENOSPC);
    case OpenFile::kConsole:
      for (uint64_t done = 0; done < count; done += kConsoleChunk)
        console_write(from + done, smaller(kConsoleChunk, count - done), is_init(self->tgid),
                      out->console_stream);
      return static_cast<int64_t>(count);
    case OpenFile::kNull:  // /dev/null, and Linux's /dev/zero and random take it all too
      return static_cast<int64_t>(count);
    default:
      return error(EINVAL);
  }
}

// A socket's pipe to read (nullptr after shutdown(SHUT_RD): end of file).
Pipe* socket_source(const OpenFile* in) { return (in->shut & kShutRead) ? nullptr : in->pipe; }

// A socket's pipe to write, or nullptr after shutdown(SHUT_WR): then
// SIGPIPE was raised and the write is EPIPE.
Pipe* socket_sink(Process* self, const OpenFile* out) {
  if (!(out->shut & kShutWrite)) return out->peer;
  IrqLockGuard guard(sched::lock);
  signals::send_thread_locked(self, kSigPipe);
  return nullptr;
}

int64_t partial(uint64_t done, int64_t e) { return done ? static_cast<int64_t>(done) : e; }

// Linux's splice_file_to_pipe: waits once for room in `out` (as write(2)
// waits: EAGAIN, EINTR, EPIPE and SIGPIPE), then copies from `in` at *offset
// as much as fits, up to `count`: the number, *offset moved by it. A
// socket's bytes move pipe to pipe.
int64_t file_to_pipe(Process* self, OpenFile* in, uint64_t* offset, Pipe* out, uint64_t count,
                     bool nonblocking_out) {
  if (in->kind == OpenFile::kSocket && count > 0) {
    Pipe* from = socket_source(in);
    if (from == nullptr) return 0;
    return pipe::move(self, from, out, count, nonblocking_out || nonblocking(in), false);
  }
  const int64_t room = pipe::wait_room(self, out, nonblocking_out, false);
  if (room < 0 || count == 0) return room < 0 ? room : 0;
  if (!splice_source(in)) return error(EINVAL);
  count = smaller(count, static_cast<uint64_t>(room));  // what fits now, however fast it drains
  uint64_t done = 0;
  while (done < count) {
    Bounce bounce;
    const uint64_t got =
        read_chunk(in, *offset, bounce.data(), smaller(count - done, kBounceBytes));
    if (got == 0) break;
    const int64_t put = pipe::put(self, out, bounce.data(), got, false);
    if (put < 0) return partial(done, put);
    *offset += static_cast<uint64_t>(put);
    done += static_cast<uint64_t>(put);
    if (static_cast<uint64_t>(put) < got) break;  // the pipe is full
  }
  return static_cast<int64_t>(done);
}

// Linux's do_splice_direct (sendfile and copy_file_range to anything but a
// pipe): all of `count` from `in` at *in_offset to `out` at *out_offset,
// or up to the end of `in`. A socket's writes wait for room as write(2)
// does (an interrupted copy returns the bytes copied). Both offsets move.
int64_t file_to_file(Process* self, OpenFile* in, uint64_t* in_offset, OpenFile* out,
                     uint64_t* out_offset, uint64_t count) {
  // Linux's splice_direct_to_actor: an input without an offset (a pipe, a
  // socket, the console) is EINVAL; one that cannot splice only once there
  // is something to read.
  if (cannot_seek(in) || (count > 0 && !splice_source(in))) return error(EINVAL);
  Pipe* sink = nullptr;
  if (out->kind == OpenFile::kSocket && count > 0) {
    sink = socket_sink(self, out);
    if (sink == nullptr) return error(EPIPE);
  }
  uint64_t done = 0;
  while (done < count) {
    uint64_t want = smaller(count - done, kBounceBytes);
    if (sink != nullptr) {
      const int64_t room = pipe::wait_room(self, sink, nonblocking(out), false);
      if (room < 0) return partial(done, room);
      want = smaller(want, static_cast<uint64_t>(room));
    }
    Bounce bounce;
    const uint64_t got = read_chunk(in, *in_offset, bounce.data(), want);
    if (got == 0) break;
    const int64_t put = sink ? pipe::put(self, sink, bounce.data(), got, false)
                             : write_chunk(self, out, *out_offset, bounce.data(), got);
    if (put < 0) return partial(done, put);
    *in_offset += static_cast<uint64_t>(put);
    *out_offset += static_cast<uint64_t>(put);
    done += static_cast<uint64_t>(put);
  }
  return static_cast<int64_t>(done);
}

// Linux's do_splice_from (splice from a pipe to anything but a pipe): waits
// for data (0 at end of file), then writes what the pipe holds, up to
// `count`, to `out` at *out_offset. Bytes taken from the pipe that a RAM
// file has no room for are lost (Linux leaves them in the pipe).
int64_t pipe_to_file(Process* self, Pipe* in, OpenFile* out, uint64_t* out_offset, uint64_t count,
                     bool nonblocking_in) {
  if (out->kind == OpenFile::kSocket) {
    Pipe* sink = socket_sink(self, out);
    return sink ? pipe::move(self, in, sink, count, nonblocking_in || nonblocking(out), false)
                : error(EPIPE);
  }
  if (out->kind != OpenFile::kRamFile && out->kind != OpenFile::kConsole &&
      out->kind != OpenFile::kNull)
    return error(EINVAL);  // no splice_write
  uint64_t done = 0;
  while (done < count) {
    // Only the first wait may sleep: Linux stops once the pipe is empty.
    const int64_t waiting = pipe::wait_data(self, in, nonblocking_in || done > 0);
    if (waiting <= 0) return done ? static_cast<int64_t>(done) : waiting;
    Bounce bounce;
    const uint64_t got = pipe::take(in, bounce.data(), smaller(count - done, kBounceBytes));
    if (got == 0) continue;  // another reader took them
    const int64_t put = write_chunk(self, out, *out_offset, bounce.data(), got);
    if (put < 0) return partial(done, put);
    *out_offset += got;
    done += got;
  }
  return static_cast<int64_t>(done);
}

// rw_verify_area: a negative count, a negative offset or one whose end
// passes 2^63 is EINVAL (no file here takes unsigned offsets).
bool bad_range(uint64_t offset, uint64_t count) {
  return static_cast<int64_t>(count) < 0 || static_cast<int64_t>(offset) < 0 ||
         static_cast<int64_t>(offset + count) < 0;
}

bool load_offset(Process* self, uint64_t va, uint64_t* offset) {
  return copy_from_user(self->space(), offset, va, sizeof *offset);
}

bool store_offset(Process* self, uint64_t va, uint64_t offset) {
  return copy_to_user(self->space(), va, &offset, sizeof offset);
}

// Linux's do_sendfile; `offset` is nullptr for the input's own.
int64_t send_file(Process* self, uint64_t out_fd, uint64_t in_fd, uint64_t* offset,
                  uint64_t count) {
  OpenFile* in = file_at(self->fds, in_fd);
  if (in == nullptr || !readable(in)) return error(EBADF);
  if (offset != nullptr && cannot_seek(in)) return error(ESPIPE);
  uint64_t position = offset ? *offset : in->offset;
  if (bad_range(position, count)) return error(EINVAL);
  count = smaller(count, kMaxRwCount);
  OpenFile* out = file_at(self->fds, out_fd);
  if (out == nullptr || !writable(out)) return error(EBADF);
  int64_t n;
  if (Pipe* pipe = pipe_of(out)) {
    n = file_to_pipe(self, in, &position, pipe, count, nonblocking(out));
  } else {
    if (out->flags & LINUX_O_APPEND) return error(EINVAL);
    uint64_t out_position = out->offset;
    if (bad_range(out_position, count)) return error(EINVAL);
    n = file_to_file(self, in, &position, out, &out_position, count);
    if (n > 0 && out->kind == OpenFile::kRamFile) out->offset = out_position;
  }
  if (n > 0) {
    if (offset)
      *offset = position;
    else
      in->offset = position;
  }
  return n;
}

}  // namespace

// sendfile(out_fd, in_fd, offset, count) (Linux/Alpha's 370 is
// sendfile64): from a file with data at offsets (RAM and initrd files,
// /proc texts, /dev/zero, /dev/urandom), at *offset (which moves, the
// file's offset not) or at the file's offset (which moves), to a pipe
// (Linux's splice_file_to_pipe: as much as fits once there is room) or to
// a RAM file, the console, /dev/null or a socket (all of it). EINVAL: a
// pipe, a socket (but to a pipe), the console (but to a pipe), /dev/null or
// a directory to read, O_APPEND or an anonymous file to write; ESPIPE: an
// offset for a file that has none.
int64_t sys_sendfile(Process* self, TrapFrame*, const Args& args) {
  if (args.a[2] == 0) return send_file(self, args.a[0], args.a[1], nullptr, args.a[3]);
  uint64_t offset;
  if (!load_offset(self, args.a[2], &offset)) return error(EFAULT);
  const int64_t n = send_file(self, args.a[0], args.a[1], &offset, args.a[3]);
  return store_offset(self, args.a[2], offset) ? n : error(EFAULT);
}

namespace {

// Linux's generic_copy_file_checks and rw_verify_area; 0 or -errno, and
// *count cut at the input's end.
int64_t check_copy_range(const OpenFile* in, uint64_t in_offset, const OpenFile* out,
                         uint64_t out_offset, uint64_t* count) {
  if (in->kind == OpenFile::kDirectory || out->kind == OpenFile::kDirectory) return error(EISDIR);
  if (!regular(in) || !regular(out)) return error(EINVAL);
  if (!readable(in) || !writable(out) || (out->flags & LINUX_O_APPEND)) return error(EBADF);
  // One file system holds the RAM and initrd files; /proc and /sys are others.
  if ((in->kind == OpenFile::kGenerated) != (out->kind == OpenFile::kGenerated))
    return error(EXDEV);
  if (in_offset + *count < in_offset || out_offset + *count < out_offset) return error(EOVERFLOW);
  const uint64_t size = in->kind == OpenFile::kRamFile ? ramfs::size(in->node) : in->file.size;
  if (static_cast<int64_t>(in_offset) >= static_cast<int64_t>(size))
    *count = 0;
  else
    *count = smaller(*count, size - in_offset);
  if (in->kind == OpenFile::kRamFile && in->node == out->node && out_offset + *count > in_offset &&
      out_offset < in_offset + *count)
    return error(EINVAL);  // overlapping ranges of one file
  if (bad_range(in_offset, *count) || bad_range(out_offset, *count)) return error(EINVAL);
  return 0;
}

}  // namespace

// copy_file_range(fd_in, off_in, fd_out, off_out, len, flags): between
// regular files of one file system (RAM and initrd files; /proc's EXDEV),
// at *off_in and *off_out (which move) or the files' offsets (which move),
// up to the input's end; flags must be 0. EISDIR, EINVAL (another kind of
// file, overlapping ranges of one file), EBADF (not readable, not
// writable, O_APPEND), EOVERFLOW (a range past 2^64).
int64_t sys_copy_file_range(Process* self, TrapFrame*, const Args& args) {
  OpenFile* in = file_at(self->fds, args.a[0]);
  OpenFile* out = in ? file_at(self->fds, args.a[2]) : nullptr;
  if (out == nullptr) return error(EBADF);
  uint64_t in_offset = in->offset, out_offset = out->offset;
  if (args.a[1] && !load_offset(self, args.a[1], &in_offset)) return error(EFAULT);
  if (args.a[3] && !load_offset(self, args.a[3], &out_offset)) return error(EFAULT);
  if (args.a[5] != 0) return error(EINVAL);
  uint64_t count = args.a[4];
  if (const int64_t e = check_copy_range(in, in_offset, out, out_offset, &count); e < 0) return e;
  if (count == 0) return 0;
  uint64_t in_end = in_offset, out_end = out_offset;
  const int64_t n = file_to_file(self, in, &in_end, out, &out_end, smaller(count, kMaxRwCount));
  if (n <= 0) return n;
  int64_t result = n;
  if (args.a[1] == 0)
    in->offset = in_end;
  else if (!store_offset(self, args.a[1], in_end))
    result = error(EFAULT);
  if (args.a[3] == 0)
    out->offset = out_end;
  else if (!store_offset(self, args.a[3], out_end))
    result = error(EFAULT);
  return result;
}

namespace {

// Linux's do_splice; `in_offset`, `out_offset` nullptr for the files' own.
int64_t splice_files(Process* self, OpenFile* in, uint64_t* in_offset, OpenFile* out,
                     uint64_t* out_offset, uint64_t count, uint64_t flags) {
  if (!readable(in) || !writable(out)) return error(EBADF);
  Pipe* from = pipe_of(in);
  Pipe* to = pipe_of(out);
  const bool nonblocking_flag = flags & kSpliceNonblock;
  if (from && to) {
    if (from == to) return error(EINVAL);
    return pipe::move(self, from, to, count,
                      nonblocking_flag || nonblocking(in) || nonblocking(out), false);
  }
  if (from) {  // a pipe to a file
    if (out_offset && cannot_seek(out)) return error(EINVAL);
    uint64_t position = out_offset ? *out_offset : out->offset;
    if (out->flags & LINUX_O_APPEND) return error(EINVAL);
    if (bad_range(position, count)) return error(EINVAL);
    const int64_t n =
        pipe_to_file(self, from, out, &position, count, nonblocking_flag || nonblocking(in));
    if (n > 0 && out_offset)
      *out_offset = position;
    else if (n > 0 && out->kind == OpenFile::kRamFile)
      out->offset = position;
    return n;
  }
  if (to) {  // a file to a pipe
    if (in_offset && cannot_seek(in)) return error(EINVAL);
    uint64_t position = in_offset ? *in_offset : in->offset;
    if (bad_range(position, count)) return error(EINVAL);
    const int64_t n = file_to_pipe(self, in, &position, to, smaller(count, kMaxRwCount),
                                   nonblocking_flag || nonblocking(out));
    if (n > 0 && in_offset)
      *in_offset = position;
    else if (n > 0)
      in->offset = position;
    return n;
  }
  return error(EINVAL);  // one of them must be a pipe
}

}  // namespace

// splice(fd_in, off_in, fd_out, off_out, len, flags): from a pipe to a RAM
// file (at *off_out or its offset), the console, /dev/null, a socket or
// another pipe, or to a pipe from what sendfile reads; at most what the
// pipe holds (after waiting for some), or what fits in it (after waiting
// for room). SPLICE_F_NONBLOCK or an O_NONBLOCK pipe: EAGAIN instead of
// waiting; SPLICE_F_MOVE, MORE and GIFT change nothing. ESPIPE: an offset
// for a pipe; EINVAL: no pipe, the same pipe twice, O_APPEND, an offset for
// a file that has none.
int64_t sys_splice(Process* self, TrapFrame*, const Args& args) {
  const uint64_t count = args.a[4], flags = args.a[5];
  if (count == 0) return 0;
  if (flags & ~kSpliceAll) return error(EINVAL);
  OpenFile* in = file_at(self->fds, args.a[0]);
  OpenFile* out = in ? file_at(self->fds, args.a[2]) : nullptr;
  if (out == nullptr) return error(EBADF);
  if ((pipe_of(in) && args.a[1]) || (pipe_of(out) && args.a[3])) return error(ESPIPE);
  uint64_t in_offset = 0, out_offset = 0;
  if (args.a[3] && !load_offset(self, args.a[3], &out_offset)) return error(EFAULT);
  if (args.a[1] && !load_offset(self, args.a[1], &in_offset)) return error(EFAULT);
  const int64_t n = splice_files(self, in, args.a[1] ? &in_offset : nullptr, out,
                                 args.a[3] ? &out_offset : nullptr, count, flags);
  if (n < 0) return n;
  if (args.a[3] && !store_offset(self, args.a[3], out_offset)) return error(EFAULT);
  if (args.a[1] && !store_offset(self, args.a[1], in_offset)) return error(EFAULT);
  return n;
}

// tee(fd_in, fd_out, len, flags): copies up to `len` bytes waiting in one
// pipe into another without taking them (waits for data, then for room,
// as splice). EINVAL: not two pipes, or one pipe twice; EBADF: a write end
// to read or a read end to write.
int64_t sys_tee(Process* self, TrapFrame*, const Args& args) {
  if (args.a[3] & ~kSpliceAll) return error(EINVAL);
  if (args.a[2] == 0) return 0;
  OpenFile* in = file_at(self->fds, args.a[0]);
  OpenFile* out = in ? file_at(self->fds, args.a[1]) : nullptr;
  if (out == nullptr || !readable(in) || !writable(out)) return error(EBADF);
  Pipe* from = pipe_of(in);
  Pipe* to = pipe_of(out);
  if (from == nullptr || to == nullptr || from == to) return error(EINVAL);
  const bool nonblocking_any = (args.a[3] & kSpliceNonblock) || nonblocking(in) || nonblocking(out);
  return pipe::move(self, from, to, args.a[2], nonblocking_any, true);
}

}  // namespace kernel::sys
