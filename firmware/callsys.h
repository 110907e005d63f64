/* callsys for user-mode C (Alpha only): the one wrapper through which the
 * user runtime (workloads/runtime), the freestanding test programs
 * (tests/guest/user/sys.h) and the newlib link test enter the kernel, with
 * the numbers and the register contract of firmware/syscalls.h. Kernel-mode
 * CALL_PALs are firmware/pal_calls.h's. */
#ifndef DCPI_FIRMWARE_CALLSYS_H
#define DCPI_FIRMWARE_CALLSYS_H

#include "firmware/syscalls.h"

/* Result of one system call: the value and the a3 error flag. */
struct dcpi_sysret {
  long value; /* result, or a positive Linux/Alpha errno if error != 0 */
  long error; /* a3 */
};

/* What the kernel may clobber besides v0 and a0-a5: t0-t7 ($1-$8), t8-t11
 * ($22-$25), pv ($27), at ($28), and memory it writes for the caller. */
#define DCPI_CALLSYS_CLOBBERS \
  "$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8", "$22", "$23", "$24", "$25", "$27", "$28", "memory"

static inline struct dcpi_sysret dcpi_callsys(long nr, long a0, long a1, long a2, long a3, long a4,
                                              long a5) {
  register long v0 __asm__("$0") = nr;
  register long r16 __asm__("$16") = a0;
  register long r17 __asm__("$17") = a1;
  register long r18 __asm__("$18") = a2;
  register long r19 __asm__("$19") = a3;
  register long r20 __asm__("$20") = a4;
  register long r21 __asm__("$21") = a5;
  __asm__ volatile("callsys"
                   : "+r"(v0), "+r"(r16), "+r"(r17), "+r"(r18), "+r"(r19), "+r"(r20), "+r"(r21)
                   :
                   : DCPI_CALLSYS_CLOBBERS);
  struct dcpi_sysret r = {v0, r19};
  return r;
}

/* A call without arguments (getxpid): a0-a5 are merely clobbered, so a loop
 * around it sets nothing but v0 (workloads/callpal.c measures exactly this
 * sequence: DCPI §4.1.3's PALcode blind spot). */
static inline struct dcpi_sysret dcpi_callsys0(long nr) {
  register long v0 __asm__("$0") = nr;
  register long r19 __asm__("$19");
  __asm__ volatile("callsys"
                   : "+r"(v0), "=r"(r19)
                   :
                   : "$16", "$17", "$18", "$20", "$21", DCPI_CALLSYS_CLOBBERS);
  struct dcpi_sysret r = {v0, r19};
  return r;
}

#endif
