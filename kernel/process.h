// Processes and kernel threads. PIDs are monotonic and never reused (the
// driver stores them in 16 bits; 65535 spawns is far beyond any run); pid 0
// is each CPU's idle thread (kernel/idle time).
#pragma once
#include <cstdint>

#include "firmware/contexts_format.h"
#include "firmware/load_map.h"
#include "kernel/address_space.h"
#include "kernel/initrd.h"
#include "kernel/traps.h"

namespace kernel {

// The OSF/1 process control block that swpctx reads and writes.
struct Pcb {
  uint64_t ksp;
  uint64_t usp;
  uint64_t ptbr;  // physical byte address of the L1 page table
  uint64_t pcc_asn;
  uint64_t unique;
  uint64_t fen;  // bit 0: floating point enabled
};

enum class ProcessState : uint32_t { kFree, kReady, kRunning, kBlocked, kZombie };

struct OpenFile {
  enum Kind : uint32_t { kNone, kConsole, kInitrd } kind;
  initrd::File file;
  uint64_t offset;
  char path[dcpi::kImagePathMax];  // as opened: what a mapping's load-map record names
};

inline constexpr uint32_t kMaxFiles = 16;
inline constexpr uint64_t kKernelStackPages = 2;              // 16 KB
inline constexpr uint64_t kUserStackBytes = 256 * 1024;       // mapped at spawn
inline constexpr uint64_t kUserStackLimit = 8 * 1024 * 1024;  // grown on faults up to this
inline constexpr uint64_t kUserStackTop = 0x120000000;        // as Linux/Alpha: below the text
inline constexpr uint64_t kHeapLimit = 0x10000000000;         // brk never passes 1 TB
// Linux/Alpha's TASK_UNMAPPED_BASE: the dynamic loader goes here and mmap
// hands out addresses upwards from just after it.
inline constexpr uint64_t kMmapBase = 0x20000000000;
inline constexpr uint64_t kPieBase = 0x120000000;  // an ET_DYN program, where ET_EXEC ones link

struct alignas(64) Process {
  Pcb pcb;  // first: 64-byte aligned for PALcode
  uint32_t pid;
  uint32_t parent_pid;  // 0: the kernel (nobody waits)
  ProcessState state;
  bool kernel_thread;
  bool idle;
  bool waiting;           // blocked in wait4
  Process* next;          // run queue link
  uint64_t kernel_stack;  // KSEG base of kKernelStackPages pages
  AddressSpace space;
  uint64_t brk_start, brk;
  uint64_t mmap_next;        // where the next mmap without a hint goes
  uint64_t ieee_fp_control;  // osf_setsysinfo(SSI_IEEE_FP_CONTROL)
  int64_t wait_status;       // Linux encoding, valid once a zombie
  uint64_t cpu_mask;         // CPUs it has run on
  uint64_t run_cycles;       // cycles spent running (times())
  uint64_t child_cycles;
  uint64_t switched_in;  // RPCC at the last switch in
  OpenFile files[kMaxFiles];
  char name[64];
  uint64_t fp[33];  // f0-f31, FPCR (user processes only)
};
// The contexts plugin reads a thread's pid from its PCB at each swpctx
// (firmware/contexts_format.h).
static_assert(__builtin_offsetof(Process, pid) == DCPI_PCB_PID_OFFSET);

// The process running on this CPU (its idle thread when none).
Process* current();
uint32_t current_pid();

// Starts a kernel thread running fn(arg); returns its pid, or 0 when out of
// memory or process slots. It exits when fn returns.
uint32_t spawn_kernel_thread(void (*fn)(void*), void* arg, const char* name);

// Creates a user process from the initrd executable `path` with `argc`
// arguments (kernel copies); returns its pid (> 0) or -errno.
int64_t spawn_user(const char* path, const char* const* argv, uint64_t argc, uint32_t parent);

// Ends the current process with a Linux wait status (code << 8, or a signal
// number); never returns.
[[noreturn]] void exit_current(int64_t wait_status);
// Kills the current user process after a fault it caused (SIGSEGV, ...):
// "dcpi-kernel: pid 7 (/bin/bad) killed: memory fault at va 0x0 pc 0x...".
// `label` names `value` ("va", or "summary" for an arithmetic trap).
[[noreturn]] void kill_current(int signal, const char* what, const char* label, uint64_t value,
                               uint64_t pc);

// A user fault on an unmapped page (mmcsr 0, "translation not valid") within
// kUserStackLimit below the stack top maps a fresh page there: the stack
// grows on demand like Linux's (glibc programs may need more than the
// kUserStackBytes mapped at spawn). False if the fault is not that.
bool grow_user_stack(uint64_t address, uint64_t mmcsr);

// wait4: the pid reaped (status stored), 0 with WNOHANG and nothing to
// reap, or -errno.
int64_t wait_child(int64_t pid, int64_t* status, uint64_t options);

// True while `pid` is alive (not yet reaped).
bool process_exists(uint32_t pid);
// Number of CPUs currently running a user process (test support).
uint64_t cpus_running_user();

// At boot: what to report when init (the first process the kernel spawns)
// exits, and whether to halt then.
void set_init_pid(uint32_t pid, bool halt_when_done);
// True for init: its console output also goes to the host (issue 30).
bool is_init(uint32_t pid);

}  // namespace kernel
