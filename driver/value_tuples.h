// Value-sampling tuples (seed 001 §2.1.2, §2.3, §2.4): one per instruction
// the interrupt handler interpreted, carried to the host in kValues records
// of the transfer ring (RecordType::kValues). Shared by the guest writer and
// the host decoder; documented in docs/transfer-format.md.
#pragma once
#include <cstdint>

namespace dcpi {

enum ValueTupleFlags : uint8_t {
  kTupleMemory = 1u << 0,  // va (and latency) are meaningful
  kTupleLoad = 1u << 1,    // the access was a load
  kTupleFp = 1u << 2,      // a, b, result are FP register images (print as FP)
  kTupleFirst = 1u << 3,   // first instruction of an interpretation run
};

// 72 bytes. `a`/`b`: the Ra/Fa and Rb/Fb (or literal) values the instruction
// read; `result`: the register value it wrote, or the value it stored, or
// 1/0 for a taken/untaken conditional branch; `ra`, `stack_top`: the
// context of seed 001 §2.3 (return-address register and the quadword at the
// stack pointer when the run began; stack_top is 0 if it was unreadable).
// `latency`: RPCC cycles around the access -- under QEMU icount every load
// costs the same, so this is constant there (seed 001 §3.3 needs real timing).
struct ValueTuple {
  uint64_t pc;
  uint32_t word;
  uint32_t latency;
  uint16_t pid;
  uint8_t flags;  // ValueTupleFlags
  uint8_t index;  // position in its interpretation run, 0-based
  uint32_t reserved;
  uint64_t a;
  uint64_t b;
  uint64_t result;
  uint64_t va;
  uint64_t ra;
  uint64_t stack_top;
};
static_assert(sizeof(ValueTuple) == 72);

// Payload of a kValues record: this header, then `count` ValueTuples.
struct ValuesPayload {
  uint32_t count;
  uint32_t tuple_bytes;  // sizeof(ValueTuple), for forward compatibility
  uint64_t dropped;      // tuples lost on this CPU since the previous record (buffer full)
};
static_assert(sizeof(ValuesPayload) == 16);

// Why interpretation runs ended early, counted per CPU (ValueStats).
struct ValueStats {
  uint64_t cpu;
  uint64_t runs;            // interpretation runs started
  uint64_t interpreted;     // instructions interpreted (= tuples produced)
  uint64_t skipped_kernel;  // interrupts in kernel mode (not interpreted)
  uint64_t stops[8];        // by isa::interp::Stop
  uint64_t tuples_dropped;  // tuple buffer full
  uint64_t reserved[3];
};
static_assert(sizeof(ValueStats) == 128);

}  // namespace dcpi
