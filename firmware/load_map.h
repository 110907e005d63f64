// Image-load notifications (DCPI §4.3.2: the modified loader tells the daemon
// where each image lands). The kernel appends one record per exec (a new
// image replaces every mapping of the pid: execve), one per fork, one per
// executable file mapping (ld.so, shared libraries), one per process exit,
// and one each for itself and the PALcode at boot; the driver's
// daemon forwards them through the transfer ring (kLoadMap records). Layout
// written once for the guest (writer) and hostdump (reader).
#pragma once
#include <cstddef>
#include <cstdint>

namespace dcpi {

inline constexpr uint64_t kLoadMapMagic = 0x50414d4c49504344ull;  // "DCPILMAP"
inline constexpr uint32_t kLoadMapCapacity = 4096;
inline constexpr uint32_t kBuildIdMax = 32;
inline constexpr uint32_t kImagePathMax = 168;

enum class LoadKind : uint32_t {
  kExec = 1,     // a user image mapped for pid
  kExit = 2,     // pid exited (status in exit_status); its images are gone
  kKernel = 3,   // the kernel image (pid 0, valid for every pid)
  kPalcode = 4,  // the PALcode image (pid 0, valid for every pid)
  kMap = 5,      // an executable file mapping of pid: the dynamic loader, a shared
                 // library, a dlopen()ed object (DCPI §4.3.2's loader notification)
  kFork = 6,     // pid was forked from parent_pid: it starts with a copy of the
                 // parent's mappings (no range; path = the program's name)
  // The process table (issue 29). Samples carry the thread id (the driver's
  // pid key, DCPI §4.2.1, holds the running thread); these records tell the
  // host which process each thread belongs to. A process's first thread has
  // tid == pid and needs no kThread record.
  kThread = 7,      // a new thread `pid` (its tid) of process `parent_pid`; path = its name
  kThreadName = 8,  // thread `pid` of process `parent_pid` is now called `path` (prctl)
  kThreadExit = 9,  // thread `pid` of process `parent_pid` ended (exit_status: its status);
                    // load_address: the cycles it ran, size: its own share of them under
                    // -icount's one clock (kernel/cpu_time.h); both 0 from a guest before them
  kCommand = 10,    // process `pid` runs with argv[0] = `path` (after kExec)
  // Counting mode (issue 26 item 4, `dcpi stat`): process `pid`'s virtual
  // counters at its end, just before its kExit. A CountsRecord, not a
  // LoadMapRecord: it has no path.
  kCounts = 11,
};

// A PC in [load_address, load_address + size) of process pid (any pid for
// kKernel/kPalcode) lies in this image at ELF virtual address
// pc - load_address + link_address.
struct LoadMapRecord {
  uint32_t kind;  // LoadKind
  uint32_t pid;
  uint64_t load_address;
  uint64_t size;
  uint64_t link_address;
  uint64_t time;  // RPCC when recorded
  int64_t exit_status;
  uint32_t parent_pid;
  uint32_t build_id_bytes;  // 0 if the image has no NT_GNU_BUILD_ID note
  uint8_t build_id[kBuildIdMax];
  char path[kImagePathMax];  // NUL-terminated
};
static_assert(sizeof(LoadMapRecord) == 256);

// Counting mode's per-process totals (issue 26 item 4). The R10000 paper's
// (seed 003) virtual counters: 64 bits per event per process, saved and
// restored at each context switch by the kernel; IRIX's rule adds a waited-for
// child's totals (its own and its children's) to its parent's children
// totals. `counted_cycles` is the time an event was selected on its counter
// while the process ran (the multiplexing share); `cycles` the process's
// whole time while counting (its threads' run time, kernel mode included).
// A process counts up to kCountEvents events (counter 1's loads and stores,
// counter 2's five); one record has room for kCountSlots of them, so a
// process with more sends a second record, flagged kCountsContinued, right
// after the first.
inline constexpr uint32_t kCountSlots = 5;
inline constexpr uint32_t kCountEvents = 7;
struct CountSlot {
  uint64_t count;  // user-mode events (KILLK, KILLP set)
  uint64_t counted_cycles;
  uint64_t child_count;
  uint64_t child_counted_cycles;
};
static_assert(sizeof(CountSlot) == 32);
struct CountsRecord {
  uint32_t kind;  // LoadKind::kCounts
  uint32_t pid;   // the process (thread group id)
  uint64_t cycles;
  uint64_t child_cycles;
  uint64_t children;  // waited-for descendants whose totals are in child_*
  uint64_t time;      // RPCC when recorded (LoadMapRecord::time)
  uint64_t flags;     // kCountsInstructions
  uint32_t parent_pid;
  uint16_t slots;                // slots in use
  uint16_t events[kCountSlots];  // dcpi::Event of each slot
  CountSlot slot[kCountSlots];
  // With kCountsInstructions (the ev5 machine): user-mode instructions,
  // counter 0's issues; counted_cycles is all the time (never multiplexed).
  CountSlot instructions;
};
inline constexpr uint64_t kCountsInstructions = 1;
// More slots of the process of the kCounts record before it (same pid, same
// cycles, children and instructions): its events kCountSlots.. (counter 1's
// when counter 2 also has five).
inline constexpr uint64_t kCountsContinued = 2;
static_assert(sizeof(CountsRecord) == sizeof(LoadMapRecord));
static_assert(offsetof(CountsRecord, time) == offsetof(LoadMapRecord, time));
static_assert(offsetof(CountsRecord, parent_pid) == offsetof(LoadMapRecord, parent_pid));
static_assert(offsetof(CountsRecord, slot) == 64);
static_assert(offsetof(CountsRecord, instructions) == 224);

// At kernel symbol `dcpi_load_map`: record i is records[i % capacity].
struct alignas(64) LoadMap {
  uint64_t magic;
  uint64_t capacity;  // kLoadMapCapacity
  uint64_t count;     // records ever appended
  uint64_t reserved[5];
  LoadMapRecord records[kLoadMapCapacity];
};

}  // namespace dcpi
