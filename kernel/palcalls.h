// CALL_PAL wrappers. Our PALcode works only in its shadow registers
// (palcode/pal.S), so a call clobbers v0 and nothing else.
#pragma once
#include <cstdint>

#include "firmware/pal_abi.h"

namespace kernel::pal {

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

inline void halt() { DCPI_CALL_PAL_2(0x00, 0, 0); }
inline uint64_t whami() { return DCPI_CALL_PAL_0(0x3c); }
inline uint64_t rdps() { return DCPI_CALL_PAL_0(0x36); }
inline uint64_t swpipl(uint64_t ipl) { return DCPI_CALL_PAL_2(0x35, ipl, 0); }
inline void wrent(void (*entry)(), uint64_t kind) {
  DCPI_CALL_PAL_2(0x34, reinterpret_cast<uint64_t>(entry), kind);
}
inline void wrkgp(uint64_t gp) { DCPI_CALL_PAL_2(0x37, gp, 0); }
inline void wripir(uint64_t cpu) { DCPI_CALL_PAL_2(0x0d, cpu, 0); }
inline void wtint() { DCPI_CALL_PAL_2(0x3e, 0, 0); }
inline uint64_t rduniq() { return DCPI_CALL_PAL_0(0x9e); }
inline int64_t wrperfmon(uint64_t function, uint64_t argument) {
  return static_cast<int64_t>(DCPI_CALL_PAL_2(0x39, function, argument));
}
inline uint64_t vmtime_ns() { return DCPI_CALL_PAL_2(0x09, CSERVE_VMTIME, 0); }
inline uint64_t pal_image() { return DCPI_CALL_PAL_2(0x09, CSERVE_PAL_IMAGE, 0); }
inline uint64_t rdusp() { return DCPI_CALL_PAL_0(0x3a); }
inline void set_tick(uint64_t interval_ns) { DCPI_CALL_PAL_2(0x09, CSERVE_SET_TICK, interval_ns); }

inline void start_cpu(uint64_t cpu, void (*entry)(), uint64_t stack, uint64_t argument) {
  register uint64_t v0 asm("$0");
  register uint64_t a0 asm("$16") = CSERVE_START_CPU;
  register uint64_t a1 asm("$17") = cpu;
  register uint64_t a2 asm("$18") = reinterpret_cast<uint64_t>(entry);
  register uint64_t a3 asm("$19") = stack;
  register uint64_t a4 asm("$20") = argument;
  asm volatile("call_pal 0x09"
               : "=r"(v0), "+r"(a0), "+r"(a1), "+r"(a2), "+r"(a3), "+r"(a4)
               :
               : "memory");
}

// The cycle counter: virtual ns / 4, i.e. instructions under icount.
inline uint64_t rpcc() {
  uint64_t value;
  asm volatile("rpcc %0" : "=r"(value));
  return value;
}

}  // namespace kernel::pal
