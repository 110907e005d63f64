#include "kernel/pipe.h"

#include "kernel/futex.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/page_alloc.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"

namespace kernel {

struct Pipe {
  uint64_t buffer;  // KSEG page
  uint64_t head, count;
  uint32_t readers, writers;
  const void* name;  // a FIFO's node (pipe::open_named); nullptr: pipe2's
  // Opens of a FIFO's ends so far: an open waiting for its partner waits for
  // a change (Linux's r_counter, w_counter), so a partner that opened and
  // closed again meanwhile still counts.
  uint32_t reader_opens, writer_opens;
};

namespace pipe {
namespace {

constexpr uint32_t kPipes = 256;  // a page each while open (a connected socket takes two)
constexpr uint64_t kCapacity = pages::kPageBytes;
constexpr int kSigPipe = 13;
Pipe pipes[kPipes];

uint64_t key(const Pipe* p) { return reinterpret_cast<uint64_t>(p); }

// Copies between the ring and user memory, at most `count` bytes, in up to
// two pieces (the ring wraps). False on a bad user address.
bool drain(Process* self, Pipe* p, uint64_t to, uint64_t count) {
  while (count > 0) {
    uint64_t piece = kCapacity - p->head;
    if (piece > count) piece = count;
    if (!copy_to_user(self->space(), to, reinterpret_cast<void*>(p->buffer + p->head), piece))
      return false;
    p->head = (p->head + piece) % kCapacity;
    p->count -= piece;
    to += piece, count -= piece;
  }
  return true;
}

bool fill(Process* self, Pipe* p, uint64_t from, uint64_t count) {
  while (count > 0) {
    const uint64_t tail = (p->head + p->count) % kCapacity;
    uint64_t piece = kCapacity - tail;
    if (piece > count) piece = count;
    if (!copy_from_user(self->space(), reinterpret_cast<void*>(p->buffer + tail), from, piece))
      return false;
    p->count += piece;
    from += piece, count -= piece;
  }
  return true;
}

// The ring's bytes from `skip` on, up to `count`, copied out to kernel
// memory (nothing taken).
void copy_out(const Pipe* p, uint64_t skip, void* to, uint64_t count) {
  auto* out = static_cast<char*>(to);
  uint64_t at = (p->head + skip) % kCapacity;
  while (count > 0) {
    uint64_t piece = kCapacity - at;
    if (piece > count) piece = count;
    __builtin_memcpy(out, reinterpret_cast<const void*>(p->buffer + at), piece);
    at = (at + piece) % kCapacity;
    out += piece, count -= piece;
  }
}

// Appends `count` bytes of kernel memory (room checked by the caller).
void copy_in(Pipe* p, const void* from, uint64_t count) {
  const auto* in = static_cast<const char*>(from);
  while (count > 0) {
    const uint64_t tail = (p->head + p->count) % kCapacity;
    uint64_t piece = kCapacity - tail;
    if (piece > count) piece = count;
    __builtin_memcpy(reinterpret_cast<void*>(p->buffer + tail), in, piece);
    p->count += piece;
    in += piece, count -= piece;
  }
}

void consume(Pipe* p, uint64_t count) {
  p->head = (p->head + count) % kCapacity;
  p->count -= count;
}

}  // namespace

Pipe* create() {
  const uint64_t page = pages::allocate();
  if (page == 0) return nullptr;
  IrqLockGuard guard(sched::lock);
  for (Pipe& p : pipes) {
    if (p.buffer != 0) continue;
    p = Pipe{page, 0, 0, 1, 1, nullptr, 0, 0};
    return &p;
  }
  pages::release(page);
  return nullptr;
}

int64_t read(Process* self, Pipe* p, bool nonblocking, uint64_t buffer, uint64_t count) {
  IrqLockGuard guard(sched::lock);
  for (;;) {
    if (count == 0) return 0;
    if (p->count > 0) {
      const uint64_t n = count < p->count ? count : p->count;
      if (!drain(self, p, buffer, n)) return -EFAULT;
      futex::wake_all_locked(key(p));  // writers waiting for room
      return static_cast<int64_t>(n);
    }
    if (p->writers == 0) return 0;  // end of file
    if (nonblocking) return -EAGAIN;
    if (futex::sleep_on_locked(self, key(p)) < 0) return -EINTR;
  }
}

int64_t write(Process* self, Pipe* p, bool nonblocking, bool no_sigpipe, uint64_t buffer,
              uint64_t count) {
  IrqLockGuard guard(sched::lock);
  uint64_t done = 0;
  for (;;) {
    if (p->readers == 0) {
      if (!no_sigpipe) signals::send_thread_locked(self, kSigPipe);
      return done ? static_cast<int64_t>(done) : -EPIPE;
    }
    const uint64_t room = kCapacity - p->count;
    const uint64_t n = count - done < room ? count - done : room;
    if (n > 0) {
      if (!fill(self, p, buffer + done, n)) return done ? static_cast<int64_t>(done) : -EFAULT;
      done += n;
      futex::wake_all_locked(key(p));  // readers waiting for data
    }
    if (done == count) return static_cast<int64_t>(done);
    if (nonblocking) return done ? static_cast<int64_t>(done) : -EAGAIN;
    if (futex::sleep_on_locked(self, key(p)) < 0) return done ? static_cast<int64_t>(done) : -EINTR;
  }
}

Pipe* open_named(Process* self, const void* name, bool reading, bool writing, bool nonblocking,
                 int* error) {
  uint64_t spare = pages::allocate();  // the buffer, should this open make the pipe
  uint64_t freed = 0;
  Pipe* p = nullptr;
  *error = 0;
  {
    IrqLockGuard guard(sched::lock);
    for (Pipe& q : pipes)
      if (q.buffer != 0 && q.name == name) p = &q;
    for (Pipe& q : pipes) {
      if (p != nullptr || spare == 0) break;
      if (q.buffer != 0) continue;
      q = Pipe{spare, 0, 0, 0, 0, name, 0, 0};
      p = &q;
      spare = 0;
    }
    if (p == nullptr) {
      *error = spare == 0 ? ENOMEM : ENFILE;
    } else if (writing && !reading && nonblocking && p->readers == 0) {
      *error = ENXIO;
    } else {
      if (reading) ++p->readers, ++p->reader_opens;
      if (writing) ++p->writers, ++p->writer_opens;
      futex::wake_all_locked(key(p));  // an open waiting for this partner
      const bool one_way = !(reading && writing);
      const uint32_t* partner_opens = reading ? &p->writer_opens : &p->reader_opens;
      const uint32_t seen = *partner_opens;
      if (one_way && !nonblocking && (reading ? p->writers : p->readers) == 0) {
        while (*partner_opens == seen) {
          if (futex::sleep_on_locked(self, key(p)) >= 0) continue;
          *error = EINTR;  // a signal: this end was never opened
          --(reading ? p->readers : p->writers);
          break;
        }
      }
    }
    if (*error != 0 && p != nullptr && p->readers == 0 && p->writers == 0) {
      freed = p->buffer;  // nobody else has it: it goes
      p->buffer = 0;
      p->name = nullptr;
    }
  }
  if (spare != 0) pages::release(spare);
  if (freed != 0) pages::release(freed);
  return *error ? nullptr : p;
}

void close_end(Pipe* p, bool writer) {
  uint64_t page = 0;
  {
    IrqLockGuard guard(sched::lock);
    --(writer ? p->writers : p->readers);
    futex::wake_all_locked(key(p));  // readers see end of file, writers EPIPE
    if (p->readers == 0 && p->writers == 0) {
      page = p->buffer;
      p->buffer = 0;
      p->name = nullptr;
    }
  }
  if (page != 0) pages::release(page);
}

uint32_t poll_events(const Pipe* p, bool writer) {
  constexpr uint32_t kPollIn = 1, kPollOut = 4, kPollErr = 8, kPollHup = 16;
  IrqLockGuard guard(sched::lock);
  // A write end with no reader is POLLERR and, while there is room, still
  // POLLOUT (Linux's pipe_poll): the write would fail with EPIPE at once.
  if (writer) return (p->readers == 0 ? kPollErr : 0) | (p->count < kCapacity ? kPollOut : 0);
  return (p->count > 0 ? kPollIn : 0) | (p->writers == 0 ? kPollHup : 0);
}

uint64_t available(const Pipe* p) { return p->count; }

int64_t wait_room(Process* self, Pipe* p, bool nonblocking, bool no_sigpipe) {
  IrqLockGuard guard(sched::lock);
  for (;;) {
    if (p->readers == 0) {
      if (!no_sigpipe) signals::send_thread_locked(self, kSigPipe);
      return -EPIPE;
    }
    if (p->count < kCapacity) return static_cast<int64_t>(kCapacity - p->count);
    if (nonblocking) return -EAGAIN;
    if (futex::sleep_on_locked(self, key(p)) < 0) return -EINTR;
  }
}

int64_t put(Process* self, Pipe* p, const void* from, uint64_t count, bool no_sigpipe) {
  IrqLockGuard guard(sched::lock);
  if (p->readers == 0) {
    if (!no_sigpipe) signals::send_thread_locked(self, kSigPipe);
    return -EPIPE;
  }
  const uint64_t room = kCapacity - p->count;
  const uint64_t n = count < room ? count : room;
  copy_in(p, from, n);
  if (n > 0) futex::wake_all_locked(key(p));  // readers waiting for data
  return static_cast<int64_t>(n);
}

int64_t wait_data(Process* self, Pipe* p, bool nonblocking) {
  IrqLockGuard guard(sched::lock);
  for (;;) {
    if (p->count > 0) return static_cast<int64_t>(p->count);
    if (p->writers == 0) return 0;  // end of file
    if (nonblocking) return -EAGAIN;
    if (futex::sleep_on_locked(self, key(p)) < 0) return -EINTR;
  }
}

uint64_t take(Pipe* p, void* to, uint64_t count) {
  IrqLockGuard guard(sched::lock);
  const uint64_t n = count < p->count ? count : p->count;
  copy_out(p, 0, to, n);
  consume(p, n);
  if (n > 0) futex::wake_all_locked(key(p));  // writers waiting for room
  return n;
}

int64_t move(Process* self, Pipe* from, Pipe* to, uint64_t count, bool nonblocking, bool keep) {
  IrqLockGuard guard(sched::lock);
  for (;;) {
    const bool end = from->count == 0 && from->writers == 0;
    Pipe* wait_for = nullptr;
    if (from->count == 0 && !end)
      wait_for = from;  // ipipe_prep
    else if (!end && to->readers > 0 && to->count == kCapacity)
      wait_for = to;  // opipe_prep
    if (wait_for == nullptr) break;
    if (nonblocking) return -EAGAIN;
    if (futex::sleep_on_locked(self, key(wait_for)) < 0) return -EINTR;
  }
  if (to->readers == 0) {  // checked before the end of file, as Linux's loop
    signals::send_thread_locked(self, kSigPipe);
    return -EPIPE;
  }
  uint64_t n = count < from->count ? count : from->count;
  if (n > kCapacity - to->count) n = kCapacity - to->count;
  // Through a small buffer: the two rings wrap at different places.
  char piece[256];
  for (uint64_t done = 0; done < n;) {
    const uint64_t part = n - done < sizeof piece ? n - done : sizeof piece;
    copy_out(from, keep ? done : 0, piece, part);
    if (!keep) consume(from, part);
    copy_in(to, piece, part);
    done += part;
  }
  if (n > 0) {
    futex::wake_all_locked(key(to));               // its readers
    if (!keep) futex::wake_all_locked(key(from));  // its writers
  }
  return static_cast<int64_t>(n);
}

}  // namespace pipe
}  // namespace kernel
