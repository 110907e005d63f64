// CALL_PAL wrappers for kernel-mode C++ (kernel and driver), by the names of
// firmware/pal_abi.h. Our PALcode works only in its shadow registers
// (palcode/pal.S), so a call clobbers v0 and nothing else. Inline: the
// driver's handler calls wrperfmon on every sample (DCPI §4.2: a few
// instructions matter there).
#pragma once
#include <cstdint>

#include "firmware/pal_abi.h"

namespace dcpi::pal {

#define DCPI_CALL_PAL_0(code)                                       \
  ({                                                                \
    register uint64_t v0_ asm("$0");                                \
    asm volatile("call_pal %1" : "=r"(v0_) : "i"(code) : "memory"); \
    v0_;                                                            \
  })
#define DCPI_CALL_PAL_2(code, x, y)                                                       \
  ({                                                                                      \
    register uint64_t v0_ asm("$0");                                                      \
    register uint64_t a0_ asm("$16") = (x);                                               \
    register uint64_t a1_ asm("$17") = (y);                                               \
    asm volatile("call_pal %3" : "=r"(v0_), "+r"(a0_), "+r"(a1_) : "i"(code) : "memory"); \
    v0_;                                                                                  \
  })

inline void halt() { DCPI_CALL_PAL_2(CALL_PAL_HALT, 0, 0); }
inline uint64_t whami() { return DCPI_CALL_PAL_0(CALL_PAL_WHAMI); }
inline uint64_t rdps() { return DCPI_CALL_PAL_0(CALL_PAL_RDPS); }
inline uint64_t swpipl(uint64_t ipl) { return DCPI_CALL_PAL_2(CALL_PAL_SWPIPL, ipl, 0); }
inline void wrent(void (*entry)(), uint64_t kind) {
  DCPI_CALL_PAL_2(CALL_PAL_WRENT, reinterpret_cast<uint64_t>(entry), kind);
}
inline void wrkgp(uint64_t gp) { DCPI_CALL_PAL_2(CALL_PAL_WRKGP, gp, 0); }
inline void wripir(uint64_t cpu) { DCPI_CALL_PAL_2(CALL_PAL_WRIPIR, cpu, 0); }
inline uint64_t vmtime_ns();
// Sleep until an interrupt is pending (wtint; QEMU runs it inline, without
// our PALcode).
inline void wtint() { DCPI_CALL_PAL_2(CALL_PAL_WTINT, 0, 0); }
// wtint, and report the sleep's length to PALcode (cserve CSERVE_SLEPT),
// where the ev5 model books it (docs/ev5-machine.md "Idle time"). Not used:
// with it (at IPL 7 or at the caller's) linux_openmp_cpus4 stalled at the
// end of its run about once in nine runs under load, not yet understood.
inline void wtint_reported() {
  const uint64_t before = vmtime_ns();
  DCPI_CALL_PAL_2(CALL_PAL_WTINT, 0, 0);
  // Evaluated first: the macro's register variables do not survive a call.
  const uint64_t slept = vmtime_ns() - before;
  DCPI_CALL_PAL_2(CALL_PAL_CSERVE, CSERVE_SLEPT, slept);
}
// tbi -2: invalidate the whole TLB of this CPU (after user PTEs change).
inline void tbia() { DCPI_CALL_PAL_2(CALL_PAL_TBI, static_cast<uint64_t>(-2), 0); }
inline uint64_t rduniq() { return DCPI_CALL_PAL_0(CALL_PAL_RDUNIQ); }
inline void wruniq(uint64_t value) { DCPI_CALL_PAL_2(CALL_PAL_WRUNIQ, value, 0); }
inline int64_t wrperfmon(uint64_t function, uint64_t argument) {
  return static_cast<int64_t>(DCPI_CALL_PAL_2(CALL_PAL_WRPERFMON, function, argument));
}
inline uint64_t vmtime_ns() { return DCPI_CALL_PAL_2(CALL_PAL_CSERVE, CSERVE_VMTIME, 0); }
inline uint64_t pal_image() { return DCPI_CALL_PAL_2(CALL_PAL_CSERVE, CSERVE_PAL_IMAGE, 0); }
inline uint64_t rdusp() { return DCPI_CALL_PAL_0(CALL_PAL_RDUSP); }
inline void wrusp(uint64_t value) { DCPI_CALL_PAL_2(CALL_PAL_WRUSP, value, 0); }
inline void set_tick(uint64_t interval_ns) {
  DCPI_CALL_PAL_2(CALL_PAL_CSERVE, CSERVE_SET_TICK, interval_ns);
}

inline void start_cpu(uint64_t cpu, void (*entry)(), uint64_t stack, uint64_t argument) {
  register uint64_t v0 asm("$0");
  register uint64_t a0 asm("$16") = CSERVE_START_CPU;
  register uint64_t a1 asm("$17") = cpu;
  register uint64_t a2 asm("$18") = reinterpret_cast<uint64_t>(entry);
  register uint64_t a3 asm("$19") = stack;
  register uint64_t a4 asm("$20") = argument;
  asm volatile("call_pal %6"
               : "=r"(v0), "+r"(a0), "+r"(a1), "+r"(a2), "+r"(a3), "+r"(a4)
               : "i"(CALL_PAL_CSERVE)
               : "memory");
}

// The cycle counter: virtual ns / 4, i.e. instructions under icount.
inline uint64_t rpcc() {
  uint64_t value;
  asm volatile("rpcc %0" : "=r"(value));
  return value;
}

}  // namespace dcpi::pal
