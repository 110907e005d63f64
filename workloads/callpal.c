/* callpal: a CALL_PAL-heavy microbenchmark for the blind-spot study.

   User mode may only use the unprivileged CALL_PALs, and QEMU's translator
   executes several of them inline without ever entering PALcode: imb
   (0x86), rduniq (0x9e) and wruniq (0x9f) cost one instruction and hide
   nothing (palcode/README.md, docs/qemu-deviations.md).  bpt, bugchk and
   gentrap do enter PALcode but end in a trap (a signal on Linux).  The one
   that enters our PALcode and comes back is callsys (0x83): PALcode builds
   the frame and jumps to the kernel's system call entry, the kernel
   dispatches, and retsys (a privileged CALL_PAL) returns to user mode.  So
   the loop here is `callsys` with v0 = 20 (getxpid), the cheapest system
   call: everything it costs happens in PALcode and the kernel, where
   samples that fall inside PALcode land on the instruction after the
   CALL_PAL.

   Modes (argv[1]): "callsys" (default), "imb" (the same loop around the
   inlined `call_pal 0x86`, for comparison: no PALcode at all), and
   "mixed" (both, alternately).  Natively the callsys loop is the getpid
   system call and the imb loop an empty asm statement.

   Instruction budget: user side 13 instructions per iteration (13 M
   measured under qemu-alpha, where the system call itself is not guest
   code); in the
   guest kernel the round trip (PALcode entry, frame, dispatch, getxpid,
   retsys) is on the order of 100 instructions: ITERATIONS = 1,000,000
   -> ~0.1-0.2 s at 1e9/s.  Under qemu-alpha every callsys leaves the
   translated code, ~1 us each.

   Checksum: the iteration count and whether every call returned the same
   pid (never the pid itself, which differs between runs). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#if defined(__alpha__)
#include "firmware/callsys.h"
#include "firmware/pal_abi.h"
#else
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define ITERATIONS 1000000

static inline long do_callsys_getxpid(void) {
#if defined(__alpha__)
  struct dcpi_sysret r = dcpi_callsys0(SYS_getxpid);
  return r.error ? -1 : r.value;
#else
  return syscall(SYS_getpid);
#endif
}

static inline void do_imb(void) {
#if defined(__alpha__)
  __asm__ volatile("call_pal %0" ::"i"(CALL_PAL_IMB) : "memory"); /* inlined by QEMU */
#else
  __asm__ volatile("" ::: "memory");
#endif
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "callsys";
  long iterations = argc > 2 ? atol(argv[2]) : ITERATIONS;
  int use_callsys = strcmp(mode, "imb") != 0, use_imb = strcmp(mode, "callsys") != 0;
  if (use_callsys && use_imb && strcmp(mode, "mixed") != 0) {
    printf("usage: callpal [callsys|imb|mixed] [iterations]\n");
    return 2;
  }
  long first = do_callsys_getxpid(), differ = 0, calls = 0, imbs = 0;
  for (long i = 0; i < iterations; i++) {
    if (use_callsys && (!use_imb || (i & 1) == 0)) {
      differ += do_callsys_getxpid() != first;
      calls++;
    } else {
      do_imb();
      imbs++;
    }
  }
  printf("callpal: %s, %ld callsys, %ld imb\n", mode, calls, imbs);
  uint64_t sum = ck_mix(ck_mix(ck_mix(0, (uint64_t)calls), (uint64_t)imbs), differ == 0);
  ck_print("callpal", sum);
  return differ == 0 && first > 0 ? 0 : 1;
}
