#include "kernel/procfs.h"

#include <cstdarg>

#include "kernel/console.h"
#include "kernel/irq_lock.h"
#include "kernel/page_alloc.h"
#include "kernel/scheduler.h"
#include "kernel/smp.h"
#include "kernel/text.h"

namespace kernel::procfs {
namespace {

constexpr uint64_t kPages = 4;  // 32 KB: ~600 lines of maps

// Appends to a text of `capacity` bytes; past the end it stops (the reader
// sees a cut file, as with a snapshot that did not fit).
struct Text {
  char* at;
  uint64_t capacity, length;
  __attribute__((format(printf, 2, 3))) void add(const char* format, ...) {
    if (length + 1 >= capacity) return;
    va_list args;
    va_start(args, format);
    const uint64_t n = kvformat(at + length, capacity - length, format, args);
    va_end(args);
    length = length + n < capacity ? length + n : capacity - 1;
  }
};

// Linux/Alpha's /proc/cpuinfo fields glibc and programs read ("cpus
// detected" is what Alpha's get_nprocs_conf counted); the model is what
// QEMU's clipper emulates: an EV6-compatible CPU, so no EV5 claim here.
void cpuinfo(Text& t) {
  const uint64_t cpus = smp::online_count();
  t.add("cpu\t\t\t: Alpha\ncpu model\t\t: QEMU\ncpu variation\t\t: 0\ncpu revision\t\t: 0\n");
  t.add("system type\t\t: Tsunami\nsystem variation\t: Clipper\n");
  t.add("page size [bytes]\t: %lu\nplatform string\t\t: AlphaServer ES40 (QEMU)\n",
        pages::kPageBytes);
  t.add("cpus detected\t\t: %lu\ncpus active\t\t: %lu\n", cpus, cpus);
}

void meminfo(Text& t) {
  const uint64_t kb = pages::kPageBytes / 1024;
  const uint64_t total = pages::total_count() * kb, free = pages::free_count() * kb;
  t.add("MemTotal:       %8lu kB\nMemFree:        %8lu kB\nMemAvailable:   %8lu kB\n", total, free,
        free);
  t.add(
      "Buffers:               0 kB\nCached:                0 kB\nSwapTotal:             0 kB\n"
      "SwapFree:              0 kB\n");
}

// /proc/self/maps: runs of pages with the same access, from the page
// tables. This kernel keeps no execute right (QEMU grants it with read) and
// no file names per mapping: read-only runs show r-x, writable ones rw-;
// the stack's and the heap's runs are named.
struct Run {
  uint64_t start, end;
  UserAccess access;
  bool shared;
};

struct MapsWriter {
  Text* text;
  Process* self;
  Run run;
  bool open;

  void flush() {
    if (!open) return;
    const char* perms = run.access == UserAccess::kReadWrite ? "rw-"
                        : run.access == UserAccess::kRead    ? "r-x"
                                                             : "---";
    const uint64_t stack = self->user_stack_base;
    const Mm* mm = self->mm;
    const char* name = run.start < stack && stack <= run.end ? "[stack]"
                       : mm->brk > mm->brk_start && run.start < mm->brk && mm->brk_start < run.end
                           ? "[heap]"
                           : "";
    text->add("%lx-%lx %s%c 00000000 00:00 0 %s%s\n", run.start, run.end, perms,
              run.shared ? 's' : 'p', name[0] ? "                         " : "", name);
  }
};

void visit_page(void* context, uint64_t va, UserAccess access, bool shared) {
  auto* w = static_cast<MapsWriter*>(context);
  if (w->open && w->run.end == va && w->run.access == access && w->run.shared == shared) {
    w->run.end = va + pages::kPageBytes;
    return;
  }
  w->flush();
  w->run = Run{va, va + pages::kPageBytes, access, shared};
  w->open = true;
}

void maps(Process* self, Text& t) {
  MapsWriter writer{&t, self, {}, false};
  walk_user_pages(self->space(), visit_page, &writer);
  writer.flush();
}

void status(Process* self, Text& t) {
  uint32_t threads;
  {
    IrqLockGuard guard(sched::lock);
    threads = self->group->threads;
  }
  const uint64_t rss_kb = self->space().pages * (pages::kPageBytes / 1024);
  t.add("Name:\t%s\nState:\tR (running)\nTgid:\t%u\nPid:\t%u\nPPid:\t%u\n", self->comm, self->tgid,
        self->tgid, self->parent_pid);
  t.add("Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nVmRSS:\t%8lu kB\nThreads:\t%u\n", rss_kb, threads);
}

void cpu_list(Text& t) {
  const uint64_t cpus = smp::online_count();
  if (cpus == 1)
    t.add("0\n");
  else
    t.add("0-%lu\n", cpus - 1);
}

bool in(const char* path, const char* const (&names)[3]) {
  for (const char* name : names)
    if (same_string(path, name)) return true;
  return false;
}

constexpr const char* kCpuLists[3] = {"/sys/devices/system/cpu/online",
                                      "/sys/devices/system/cpu/possible",
                                      "/sys/devices/system/cpu/present"};

}  // namespace

bool provides(const char* path) {
  return same_string(path, "/proc/cpuinfo") || same_string(path, "/proc/meminfo") ||
         same_string(path, "/proc/self/maps") || same_string(path, "/proc/self/status") ||
         in(path, kCpuLists);
}

bool make(Process* self, const char* path, uint64_t* data, uint64_t* pages_held, uint64_t* size) {
  const uint64_t buffer = pages::allocate(kPages);
  if (buffer == 0) return false;
  Text text{reinterpret_cast<char*>(buffer), kPages * pages::kPageBytes, 0};
  if (same_string(path, "/proc/cpuinfo")) cpuinfo(text);
  if (same_string(path, "/proc/meminfo")) meminfo(text);
  if (same_string(path, "/proc/self/maps")) maps(self, text);
  if (same_string(path, "/proc/self/status")) status(self, text);
  if (in(path, kCpuLists)) cpu_list(text);
  *data = buffer, *pages_held = kPages, *size = text.length;
  return true;
}

}  // namespace kernel::procfs
