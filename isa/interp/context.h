// The state the value-sampling interpreter advances (seed 001 §2.1.2) and
// what it reports per instruction. Freestanding: guest and host.
#pragma once
#include <cstdint>

namespace dcpi::isa::interp {

// An interrupted context: everything a user-level instruction can read or
// write except memory. r[31] and f[31] are kept at zero.
struct Context {
  uint64_t r[32];
  uint64_t f[32];
  // Right after f[]: the guest's fp_save/fp_restore fill f[0..30] and fpcr in one go.
  uint64_t fpcr;
  uint64_t pc;
  bool kernel_mode;  // writes to r30 (the kernel stack pointer) give up
  bool fp_touched;   // an instruction read or wrote f[] or the FPCR
  uint32_t written;  // bit n: r[n] was written (the guest stores back only those)
};
static_assert(__builtin_offsetof(Context, fpcr) == __builtin_offsetof(Context, f) + 32 * 8);

// Why a run stopped before its instruction budget (seed 001 §2.1.2: "the
// interpreter gives up when it encounters" traps, IPL changes, writes to the
// kernel stack pointer; plus what we choose not to emulate).
enum class Stop : uint8_t {
  kNone = 0,          // the instruction completed
  kCallPal,           // CALL_PAL (IPL changes, system calls, PALcode state)
  kMemoryFault,       // the memory callback refused the access (not mapped / protection)
  kUnaligned,         // an access that would take the unaligned trap
  kArithmetic,        // an integer /V overflow or an FP exception that traps
  kStackPointer,      // write to the kernel stack pointer (kernel contexts)
  kStoreConditional,  // stl_c/stq_c: the lock flag is hardware state (see README)
  kUnimplemented,     // VAX FP, rc/rs, PALmode/reserved opcodes, invalid encodings
  kCount,
};

// One interpreted instruction, for the tuples (seed 001 §2.4): the operand
// values it read, the value it produced, the memory address it touched.
// Step::fp_values bits: the values to print as floating point (seed 001
// §2.4) -- for an FP load only the result, for a cvt only one side.
inline constexpr uint8_t kFpA = 1, kFpB = 2, kFpResult = 4;

struct Step {
  uint64_t pc;
  uint32_t word;    // (the major opcode is word >> 26)
  bool has_memory;  // va is meaningful
  bool load;
  uint8_t reads;      // isa::kReadsA / kReadsB: which of a, b the instruction reads
  uint8_t fp_values;  // which of a (kFpA), b (kFpB), result (kFpResult) are FP register images
  uint64_t a;         // Ra/Fa value read (0 if none)
  uint64_t b;         // Rb/Fb value or literal (0 if none)
  uint64_t result;    // value written (register) or stored (memory)
  uint64_t va;        // effective address of a load/store
  uint64_t latency;   // cycle-counter delta around the access (0 on the host)
  uint64_t named;     // the run's named register before the instruction (seed 001 §2.4)
};
static_assert(sizeof(Step) == 64, "16-byte head: zeroed per step without a memset call");

}  // namespace dcpi::isa::interp
