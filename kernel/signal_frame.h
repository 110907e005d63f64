// The Linux/Alpha signal frames as user programs see them (the kernel's
// arch/alpha/include/uapi/asm/sigcontext.h, asm/ucontext.h and the frames of
// arch/alpha/kernel/signal.c): what the handler gets in a2 and what
// sigreturn/rt_sigreturn read back. glibc's unwinder (MD_FALLBACK_FRAME_STATE
// in libgcc) finds the registers at these offsets.
#pragma once
#include <cstdint>

namespace kernel::signals {

struct SigContext {
  int64_t sc_onstack;
  int64_t sc_mask;
  int64_t sc_pc;
  int64_t sc_ps;
  int64_t sc_regs[32];
  int64_t sc_ownedfp;
  int64_t sc_fpregs[32];
  uint64_t sc_fpcr;
  uint64_t sc_fp_control;
  uint64_t sc_reserved1, sc_reserved2;
  uint64_t sc_ssize;
  uint64_t sc_sbase;
  uint64_t sc_traparg_a0, sc_traparg_a1, sc_traparg_a2;
  uint64_t sc_fp_trap_pc;
  uint64_t sc_fp_trigger_sum;
  uint64_t sc_fp_trigger_inst;
};
static_assert(sizeof(SigContext) == 648);

struct StackT {  // stack_t
  uint64_t ss_sp;
  int32_t ss_flags;
  int32_t pad;
  uint64_t ss_size;
};

struct UContext {
  uint64_t uc_flags;
  uint64_t uc_link;
  uint64_t uc_osf_sigmask;
  StackT uc_stack;
  SigContext uc_mcontext;
  uint64_t uc_sigmask;  // the kernel's sigset_t: 64 signals
};

// siginfo_t: 128 bytes; the fields kill(), faults and SIGCHLD fill.
struct SigInfo {
  int32_t si_signo;
  int32_t si_errno;
  int32_t si_code;
  int32_t pad;
  union {
    struct {
      int32_t pid;
      uint32_t uid;
      int32_t status;  // SIGCHLD
    } kill;
    uint64_t addr;  // faults
    uint8_t bytes[112];
  } u;
};
static_assert(sizeof(SigInfo) == 128);

struct RtSigFrame {
  SigInfo info;
  UContext uc;
  uint32_t retcode[3];
};
// Linux's own compile-time check (arch/alpha/kernel/signal.c).
static_assert(__builtin_offsetof(RtSigFrame, uc.uc_mcontext) == 176);

struct SigFrame {
  SigContext sc;
  uint32_t retcode[3];
};

// The trampoline Linux writes when no restorer was given: mov sp,a0;
// lda v0,NR(zero); callsys.
inline constexpr uint32_t kInsnMovSpA0 = 0x47fe0410, kInsnLdiV0 = 0x201f0000,
                          kInsnCallsys = 0x00000083;
inline constexpr uint32_t kNrSigreturn = 103, kNrRtSigreturn = 351;
inline constexpr int32_t kSiUser = 0, kSiQueue = -1, kSiTimer = -2, kSiTkill = -6;
// SIGCHLD's si_code for a child's end, stop and continuation
// (asm-generic/siginfo.h).
inline constexpr int32_t kCldExited = 1, kCldKilled = 2, kCldDumped = 3, kCldStopped = 5,
                         kCldContinued = 6;

}  // namespace kernel::signals
