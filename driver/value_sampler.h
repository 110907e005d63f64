// Value sampling in the interrupt handler (seed 001 §2.1.2): the `value`
// handler variant interprets the next N instructions of the interrupted user
// context on every k-th interrupt and records one ValueTuple per instruction
// (driver/value_tuples.h). Guest only.
#pragma once
#include <cstdint>

#include "driver/value_tuples.h"

namespace kernel {
struct TrapFrame;
}

namespace dcpi::driver {

struct CpuHot;

// Seed 001 §3.4: "the interrupt handler interprets 4 instructions in one out
// of every two interrupts".
inline constexpr uint32_t kDefaultValueLength = 4;
inline constexpr uint32_t kDefaultValueEvery = 2;
inline constexpr uint32_t kMaxValueLength = 64;
inline constexpr uint32_t kValueBufferTuples = 2048;  // per CPU (144 KB)

// From the value handler (IPL 6): maybe interpret, advancing `frame`.
void value_sample(CpuHot& hot, kernel::TrapFrame* frame);
// Configuration (copied into each CPU's auxiliary line by apply_config).
void value_configure(uint32_t length, uint32_t every);
void value_apply(uint32_t cpu);
// The daemon: moves up to `capacity` tuples of `cpu` out of its buffer.
uint32_t value_take(uint32_t cpu, ValueTuple* out, uint32_t capacity, uint64_t* dropped);
const ValueStats& value_stats(uint32_t cpu);

}  // namespace dcpi::driver
