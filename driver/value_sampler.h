// Value sampling in the interrupt handler (seed 001 §2.1.2): the `value`
// handler variant interprets the next N instructions of the interrupted user
// context on every k-th interrupt and records the run's tuples in a per-CPU
// buffer, in their wire form (firmware/value_tuples.h). Guest only.
#pragma once
#include <cstdint>

#include "driver/driver.h"
#include "firmware/record_checksum.h"
#include "firmware/trap_frame.h"
#include "firmware/value_tuples.h"

namespace dcpi::driver {

struct CpuHot;

// Seed 001 §3.4: "the interrupt handler interprets 4 instructions in one out
// of every two interrupts".
inline constexpr uint32_t kDefaultValueLength = 4;
inline constexpr uint32_t kDefaultValueEvery = 2;
inline constexpr uint32_t kValueBufferWords = 16 * 1024;  // per CPU (128 KB)

// From the value handler (IPL 6) on every k-th interrupt (the handler
// counts, CpuHot::value_countdown): interpret, advancing `frame`.
void value_sample(CpuHot& hot, TrapFrame* frame);
uint32_t value_every(uint32_t cpu);  // k
// Configuration (copied into each CPU's auxiliary line by apply_config).
void value_configure(uint32_t length, uint32_t every);
void value_apply(uint32_t cpu);
// The daemon: quadwords of complete runs waiting in `cpu`'s buffer (and
// whether tuples were dropped since the last take); then the kValues
// payload into a begun ring record: its ValuesPayload (with the tuples
// dropped since the previous take) and exactly `words` quadwords (fewer
// than waiting is fine, more is not), added to the record's `sum` as they
// are copied (driver/buffer_move.h).
uint32_t value_pending_words(uint32_t cpu, bool* dropped_since);
void value_take(uint32_t cpu, uint8_t* payload, uint32_t words, RecordChecksum& sum);

}  // namespace dcpi::driver
