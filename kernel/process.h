// Processes and kernel threads. PIDs are monotonic and never reused (the
// driver stores them in 16 bits; 65535 spawns is far beyond any run); pid 0
// is each CPU's idle thread (kernel/idle time).
#pragma once
#include <cstdint>

#include "driver/driver.h"
#include "firmware/contexts_format.h"
#include "firmware/load_map.h"
#include "kernel/address_space.h"
#include "kernel/console.h"
#include "kernel/cpu_time.h"
#include "kernel/initrd.h"
#include "kernel/spinlock.h"
#include "kernel/traps.h"

namespace kernel {

namespace epoll {
struct Set;
}

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

struct Pipe;  // kernel/pipe.h
namespace ramfs {
struct Node;  // kernel/ramfs.h
}
namespace listeners {
struct Socket;  // kernel/listeners.h
}

// An open file description (Linux's struct file): shared by the
// descriptors dup and fork make, so they share its offset; `refs` counts
// them (kernel/files.cpp).
struct OpenFile {
  enum Kind : uint32_t {
    kNone,
    kConsole,
    kInitrd,
    kRamFile,
    kDirectory,
    kNull,
    kPipeRead,
    kPipeWrite,
    kEventfd,
    kSocket,     // a socket: a socketpair's end (kernel/socket_end.h) or socket(2)'s
    kGenerated,  // a /proc or /sys file (kernel/procfs.h): `file` over `held_pages`
    kEpoll,      // an epoll instance (kernel/epoll.h)
    kTimerfd,    // a timerfd (kernel/timerfd.h): expirations in `offset`
    kSignalfd    // a signalfd (kernel/signalfd.h): reads the signals of `signal_mask`
  } kind;
  uint32_t refs;
  uint32_t flags;  // O_NONBLOCK, O_APPEND as opened (F_GETFL)
  initrd::File file;
  Pipe* pipe;                      // kSocket: the pipe it reads
  Pipe* peer;                      // kSocket: the pipe it writes (the other end reads)
  uint32_t shut;                   // kSocket: shutdown's SHUT_RD (1) and SHUT_WR (2) done
  listeners::Socket* socket;       // kSocket: socket(2)'s record (nullptr: a socketpair's end)
  epoll::Set* epoll;               // kEpoll
  uint64_t timer_deadline;         // kTimerfd: the next expiry (cycles; 0: disarmed)
  uint64_t timer_interval;         // kTimerfd: the period after it (0: once)
  bool timer_wall;                 // kTimerfd: CLOCK_REALTIME's (absolute times: wall clock)
  uint64_t held_pages;             // kGenerated: the pages at file.data, freed at the last close
  ramfs::Node* node;               // kRamFile; a FIFO's pipe end (held while open)
  uint64_t offset;                 // kDirectory: the next entry's index; kEventfd: the count
  uint32_t device;                 // kNull: the memory device's minor (kernel/files.h)
  ConsoleStream console_stream;    // kConsole: where dcpi run echoes it (kernel/console.h)
  bool semaphore;                  // kEventfd: EFD_SEMAPHORE (the count is `offset`)
  uint64_t signal_mask;            // kSignalfd: the signals it reads (bit n-1: signal n)
  char path[dcpi::kImagePathMax];  // as opened: what a mapping's load-map record names
};

inline constexpr uint32_t kMaxFiles = 64;                     // RLIMIT_NOFILE: descriptors 0-63
inline constexpr uint64_t kKernelStackPages = 2;              // 16 KB
inline constexpr uint64_t kUserStackBytes = 256 * 1024;       // mapped at spawn
inline constexpr uint64_t kUserStackLimit = 8 * 1024 * 1024;  // grown on faults up to this
inline constexpr uint64_t kUserStackTop = 0x120000000;        // as Linux/Alpha: below the text
inline constexpr uint64_t kHeapLimit = 0x10000000000;         // brk never passes 1 TB
// Linux/Alpha's TASK_UNMAPPED_BASE: the dynamic loader goes here and mmap
// hands out addresses upwards from just after it.
inline constexpr uint64_t kMmapBase = 0x20000000000;
inline constexpr uint64_t kPieBase = 0x120000000;  // an ET_DYN program, where ET_EXEC ones link

// What CLONE_VM threads share: the address space and where the heap and
// the next mmap go. `lock` serialises changes to the page tables by the
// memory calls of threads on different CPUs; `users` counts the threads
// (and vfork children) on it, the last one out frees it (kernel/mm.cpp).
struct Mm {
  AddressSpace space;
  uint64_t brk_start, brk;
  uint64_t mmap_next;  // where the next mmap without a hint goes
  uint32_t users;      // 0: a free slot
  SpinLock lock;
};

// What CLONE_FILES threads share: the descriptor table (kernel/files.cpp).
struct FdTable {
  OpenFile* files[kMaxFiles];
  uint64_t cloexec;  // bit fd: FD_CLOEXEC (closed by execve)
  uint32_t users;
  SpinLock lock;
};

// One Linux/Alpha signal disposition (struct sigaction as the kernel keeps
// it, plus the restorer glibc passes as rt_sigaction's fifth argument).
struct SignalAction {
  uint64_t handler;  // 0 SIG_DFL, 1 SIG_IGN, else the user handler
  uint64_t flags;    // SA_* (Linux/Alpha values, kernel/signals.h)
  uint64_t mask;     // blocked while the handler runs
  uint64_t restorer;
};
inline constexpr uint32_t kSignals = 64;  // 1..64; bit n-1 of a mask is signal n

// Where the last of a signal came from, for its siginfo (kernel/signals.h).
struct SignalSource {
  uint32_t pid = 0;     // si_pid: the sending process (0: the kernel), SIGCHLD's child
  int32_t code = 0;     // si_code: SI_USER 0, SI_QUEUE -1, SI_TIMER -2, SI_TKILL -6, CLD_*
  uint64_t value = 0;   // si_value (SI_QUEUE, SI_TIMER)
  int32_t timer = 0;    // si_timerid (SI_TIMER)
  int32_t overrun = 0;  // si_overrun (SI_TIMER)
  int32_t status = 0;   // si_status (SIGCHLD: the exit code, or the signal)
};
static_assert(sizeof(SignalSource) == 32);

// A thread group (a process): what CLONE_THREAD threads share. The group's
// id is its leader's pid (`tgid`); the samples and the load map name it.
inline constexpr uint32_t kResourceLimits = 16;  // Linux's RLIM_NLIMITS
// Linux/Alpha's RLIMIT_STACK and RLIMIT_NOFILE (asm/resource.h: Alpha's own
// NOFILE), the two whose hard limits this kernel has below infinity.
inline constexpr uint32_t kRlimitStack = 3, kRlimitCore = 4, kRlimitNofile = 6;
inline constexpr uint64_t kRlimInfinity = ~uint64_t{0};

struct ThreadGroup {
  SignalAction actions[kSignals];
  uint64_t pending;               // signals sent to the process (kill), taken by any thread
  SignalSource source[kSignals];  // who sent each signal last, and how (its siginfo)
  uint32_t threads;               // live threads; 0 once the last one started to leave
  // Its last thread finished leaving (end_group_locked): the leader may be
  // reaped once it is a zombie too. Not `threads == 0`: the thread that
  // takes it there still writes its records and wakes the parent after.
  bool ended;
  uint32_t users;       // Process slots pointing here (zombies too); 0: free
  bool exiting;         // exit_group or a fatal signal: every thread leaves
  int64_t exit_status;  // the group's wait status once `exiting`
  // The working directory (chdir; inherited by fork, shared by threads as
  // with CLONE_FS): absolute and normalized, "" for "/".
  char cwd[256];
  // Counting mode (issue 26 item 4): the virtual counters of its threads,
  // and of its waited-for children (IRIX's rule, seed 003).
  dcpi::driver::CountDelta counts;
  dcpi::driver::CountDelta child_counts;
  uint64_t counted_children;
  // setitimer's timers (kernel/itimers.h), under sched::lock: ITIMER_REAL's
  // expiry in virtual time, the CPU-time timers' cycles left (0: disarmed),
  // each one's reload interval.
  uint64_t real_deadline, real_interval;
  uint64_t virtual_left, virtual_interval;
  uint64_t prof_left, prof_interval;
  // The run cycles of its threads that have been reaped (the process's CPU
  // time counts them: times, getrusage, CLOCK_PROCESS_CPUTIME_ID).
  uint64_t reaped_thread_cycles;
  uint32_t umask;  // umask(2): kept and returned (as CLONE_FS, shared by threads)
  // Its process group and session (setpgid, setsid; kill and wait of a
  // group), named by their leaders' pids; inherited by fork and spawn.
  uint32_t pgid, sid;
  // prctl: the signal sent when the parent ends (PR_SET_PDEATHSIG; not
  // inherited by fork) and the dumpable flag (PR_SET_DUMPABLE; 1 at start).
  uint32_t parent_death_signal, dumpable;
  bool ptrace_refused;  // the console has said so once
  // Job control (kernel/job_control.h), under sched::lock: a group stop is
  // in effect (its threads park on their way to user mode until SIGCONT),
  // every thread has stopped (the parent was told), the signal that
  // stopped it, and what wait's WUNTRACED or WCONTINUED may report once.
  bool stopped, stop_complete;
  uint8_t wait_report;  // jobs::kReport*
  int32_t stop_signal;
  // prlimit64's soft and hard limits by RLIMIT_ number (kernel/sys_system.cpp):
  // lowered and raised within what this kernel has, kept and reported,
  // inherited by fork; not enforced below what the kernel itself allows.
  uint64_t limits[kResourceLimits][2];
};

struct alignas(64) Process {
  Pcb pcb;              // first: 64-byte aligned for PALcode
  uint32_t pid;         // the thread id (gettid)
  uint32_t tgid;        // the process id (getpid): the group leader's pid
  uint32_t parent_pid;  // 0: the kernel (nobody waits)
  ProcessState state;
  bool kernel_thread;
  bool idle;
  bool waiting;           // blocked in wait4
  bool interruptible;     // blocked where a signal may wake it (EINTR)
  bool stopped;           // parked in its group's stop: only SIGCONT or death make it ready
  Process* next;          // run queue link
  uint64_t kernel_stack;  // KSEG base of kKernelStackPages pages
  Mm* mm;                 // nullptr for kernel threads
  FdTable* fds;
  ThreadGroup* group;
  uint64_t blocked;         // signal mask (bit n-1: signal n)
  uint64_t pending;         // signals sent to this thread (tgkill, faults)
  uint64_t saved_blocked;   // rt_sigsuspend: the mask to restore at delivery
  uint64_t restart_number;  // the system call that just failed with EINTR (0: none)
  uint64_t restart_a3;      // and its a3, for an SA_RESTART restart
  bool has_saved_blocked;
  uint64_t clear_child_tid;  // set_tid_address: zeroed and woken at exit
  uint64_t wake_at;          // cycles: a timed sleep ends then (0: none)
  uint64_t futex_key;        // physical address of the futex word it waits on (0: none)
  uint32_t futex_bitset;     // FUTEX_WAIT_BITSET's mask
  uint32_t exit_signal;      // sent to the parent at exit (SIGCHLD; 0 for threads)
  uint32_t vfork_waiter;     // tid of the parent blocked in vfork until exec/exit
  uint64_t ieee_fp_control;  // osf_setsysinfo(SSI_IEEE_FP_CONTROL)
  // The user sp its outermost frame started at (exec's initial sp, clone's
  // new stack): nothing above it is a frame, so call chains copy no further.
  uint64_t user_stack_base;
  int64_t wait_status;      // Linux encoding, valid once a zombie
  uint64_t cpu_mask;        // CPUs it has run on
  uint64_t allowed_cpus;    // sched_setaffinity's mask (0: any CPU); inherited by clone
  uint64_t waited_signals;  // rt_sigtimedwait's set while it sleeps (woken by them though blocked)
  int32_t nice;  // setpriority's value, -20..19; inherited, not weighed (kernel/sys_sched.cpp)
  uint32_t sched_policy;  // sched_setscheduler's SCHED_OTHER, SCHED_BATCH or SCHED_IDLE
  uint64_t run_cycles;    // cycles spent running (times())
  uint64_t child_cycles;
  uint64_t switched_in;  // RPCC at the last switch in
  // Its cycles running and its own share of -icount's one clock
  // (kernel/cpu_time.h), for its kThreadExit record.
  cpu_time::ThreadAccount cpu_time;
  char name[64];
  char comm[16];    // the thread's name (Linux's TASK_COMM_LEN): prctl(PR_SET_NAME)
  uint64_t fp[33];  // f0-f31, FPCR (user processes only)
  // sigaltstack: the thread's alternate signal stack (size 0: none), where
  // handlers with SA_ONSTACK run; kept by fork, not by a new thread or exec.
  uint64_t altstack_sp, altstack_size;

  AddressSpace& space() { return mm->space; }
};
// The contexts plugin reads a thread's pid from its PCB at each swpctx
// (firmware/contexts_format.h).
static_assert(__builtin_offsetof(Process, pid) == DCPI_PCB_PID_OFFSET);
// The ev5 model reads the process id the same way, to key its truth by
// address space (firmware/process_block.h).
static_assert(__builtin_offsetof(Process, tgid) == DCPI_PCB_TGID_OFFSET);
static_assert(__builtin_offsetof(Process, pcb) + __builtin_offsetof(Pcb, ptbr) ==
              DCPI_PCB_PTBR_OFFSET);

// The process running on this CPU (its idle thread when none).
Process* current();
uint32_t current_pid();

// Starts a kernel thread running fn(arg); returns its pid, or 0 when out of
// memory or process slots. It exits when fn returns.
uint32_t spawn_kernel_thread(void (*fn)(void*), void* arg, const char* name);

// Creates a user process from the initrd executable `path` with `argc`
// arguments and `envc` environment strings (kernel copies); returns its pid
// (> 0) or -errno.
int64_t spawn_user(const char* path, const char* const* argv, uint64_t argc,
                   const char* const* envp, uint64_t envc, uint32_t parent);

// Ends the current process (every thread of it: exit_group, a fatal
// signal) with a Linux wait status (code << 8, or a signal number, | 0x80
// for a core dump); never returns.
[[noreturn]] void exit_current(int64_t wait_status);
// Ends only the calling thread (exit(2)): its clear_child_tid is zeroed and
// woken (pthread_join), and the process ends with its last thread.
[[noreturn]] void exit_thread(int64_t wait_status);

// CPU time in cycles: of one thread (its time switched in), and of a whole
// process (every thread, running, waiting or reaped; with sched::lock).
uint64_t thread_cycles(const Process* p);
uint64_t group_cycles_locked(const ThreadGroup* group);

// The process table, for scans with sched::lock held (signals, futexes).
Process* process_slots();
uint32_t process_slot_count();
// Calls fn(p) for each thread of `group` in the table (zombies too), with
// sched::lock held.
template <typename Fn>
void for_each_thread(const ThreadGroup* group, Fn fn) {
  for (uint32_t i = 0; i < process_slot_count(); ++i) {
    Process& p = process_slots()[i];
    if (p.state != ProcessState::kFree && p.group == group) fn(p);
  }
}
// exit_group and execve's de_thread: every other thread of `self`'s process
// looks at once (running ones kicked, sleeping ones woken, ones parked in a
// stop released) and leaves on its way back to user mode
// (signals::deliver). With sched::lock held.
void make_other_threads_leave_locked(const Process* self);
// The live process (thread group leader) `tgid`, or the live thread `tid`;
// nullptr if none. With sched::lock held.
Process* find_process_locked(uint32_t tgid);
Process* find_thread_locked(uint32_t tid);

// A new process or thread (clone(2)): a copy of the current one that
// returns from the trap `frame` with v0 = 0. kernel/clone.cpp.
struct CloneRequest {
  uint64_t flags;  // CLONE_* (Linux's values), low byte: the exit signal
  uint64_t stack;  // the child's sp, 0: the parent's
  uint64_t parent_tid, child_tid, tls;
};
int64_t clone_current(const TrapFrame* frame, const CloneRequest& request);

// The current process runs a new program (execve): on success its
// registers in `frame` start the program and 0 is returned; else -errno
// and the old program goes on. `argv`/`envp`: kernel copies. kernel/exec.cpp.
int64_t exec_current(TrapFrame* frame, const char* path, const char* const* argv, uint64_t argc,
                     const char* const* envp, uint64_t envc);
// The process table's load-map records (issue 29; firmware/load_map.h):
// kThread, kThreadName, kThreadExit for thread `p`, kCommand for its
// process. kernel/thread_records.cpp.
void record_thread(dcpi::LoadKind kind, const Process* p, int64_t status,
                   const sched::CpuTimes* times = nullptr);
void record_command(const Process* p, const char* argv0);
// A new program's thread name, as Linux's exec: the path's last component,
// cut to 15 characters.
void set_comm_from_path(Process* p, const char* path);

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
// A user access's translation fault on a demand-zero page it may make
// (loads and instruction fetches read, stores write): gives the page its
// zeroed memory; the access is then retried. `cause` is entMM's a2.
bool fault_in_demand_zero(uint64_t address, uint64_t mmcsr, uint64_t cause);

// Which children wait_child takes: one pid, those of a process group, any.
struct WaitFor {
  enum Kind { kAny, kPid, kGroup } kind;
  uint32_t id;
};
// WNOHANG, WUNTRACED (waitid's WSTOPPED), WEXITED, WCONTINUED, WNOWAIT.
inline constexpr uint64_t kWaitNohang = 1, kWaitUntraced = 2, kWaitExited = 4, kWaitContinued = 8,
                          kWaitNowait = 0x01000000;
// wait4, waitid: the pid reaped (status stored) -- with WEXITED an ended
// child, with WUNTRACED a stopped one ((sig << 8) | 0x7f), with WCONTINUED
// a continued one (0xffff) --, 0 with WNOHANG and nothing to report, or
// -errno (ECHILD, EINTR). WNOWAIT leaves the child's state to report again.
int64_t wait_child(WaitFor who, int64_t* status, uint64_t options);
// Wakes the threads of process `tgid` blocked in wait_child (a child
// ended, stopped or continued). With sched::lock.
void wake_waiters_locked(uint32_t tgid);
// Linux's is_current_pgrp_orphaned: no process of group `pgid` has its
// parent in another group of the same session (a parent that is init does
// not count); init's own group is never orphaned. With sched::lock.
bool group_orphaned_locked(uint32_t pgid);
// The process group `pgid` (0: the caller's), for kill: each live process
// in it gets `sig` (0 probes); ESRCH if there is none. pgid -1: every process
// but init and the caller (kill(-1, sig)).
int64_t signal_process_group(Process* self, int64_t pgid, int sig);
// True if a process (not yet reaped) is in group `pgid` of session `sid`
// (0: of any session). With sched::lock.
bool group_in_session_locked(uint32_t pgid, uint32_t sid);

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
