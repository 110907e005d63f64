// epoll instances (epoll_create1, epoll_ctl, epoll_wait): an interest list
// of up to 64 descriptors each, checked as poll checks them
// (kernel/readiness.h: at each tick while waiting). Level-triggered;
// EPOLLONESHOT disarms an entry once reported; EPOLLET reports an entry
// again only after it was seen not ready (edge by readiness, not by each
// arrival of data: a reader that drains to EAGAIN, as edge-triggered
// readers must, sees every edge). An entry names (descriptor, open file):
// once the descriptor no longer holds that file, it is gone, as Linux drops
// it when the file's last descriptor closes.
#pragma once
#include <cstdint>

#include "kernel/process.h"

namespace kernel::epoll {

inline constexpr uint32_t kEntries = 64;

struct Entry {
  int32_t fd;  // -1: free
  const OpenFile* file;
  uint32_t events;  // EPOLL* asked
  uint64_t data;    // the user's epoll_data
  bool disarmed;    // EPOLLONESHOT after its report
  bool reported;    // EPOLLET: reported and not seen idle since
};

struct Set {
  uint32_t users;  // descriptions holding it; 0: free
  Entry entries[kEntries];
};

// A fresh set (one user), nullptr when none is free.
Set* create();
void release(Set* set);

// An open file's last close: every entry naming it goes (as Linux drops
// an entry when its file is released, so a later file in the same slot is
// not watched by mistake).
void forget(const OpenFile* file);

// EPOLL_CTL_ADD, _DEL, _MOD: 0 or a positive errno.
int control(Set* set, uint64_t op, int32_t fd, const OpenFile* file, uint32_t events,
            uint64_t data);

// One ready entry for epoll_wait.
struct Ready {
  uint32_t events;
  uint64_t data;
};
// Ready entries now, at most `max` into `out`; their count.
uint64_t collect(Process* self, Set* set, Ready* out, uint64_t max);

}  // namespace kernel::epoll
