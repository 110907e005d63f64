// The Alpha interpreter of seed 001 §2.1.2: runs the next instructions of an
// interrupted context, advancing it exactly as the processor would, and
// gives up cleanly -- leaving the context as it was after the last
// completed instruction -- on anything it must not emulate at high IPL.
// Decoding comes from isa/decode.h (the one ISA description). Freestanding,
// no division, no FPU (IEEE arithmetic in isa/interp/softfloat.h). The
// instruction groups are in their own files (isa/interp/execute.h lists them).
//
// Memory is a policy object supplied by the caller:
//   bool load(uint64_t va, unsigned bytes, uint64_t& value);   // aligned, zero-extended
//   bool store(uint64_t va, unsigned bytes, uint64_t value);   // aligned
//   uint64_t cycles();                                         // RPCC value
// load/store return false for an access the hardware would fault on; the
// kernel's implementation (UserMemory in driver/value_sampler.cpp) walks the
// interrupted process's page tables.
#pragma once
#include <cstdint>

#include "isa/decode.h"
#include "isa/interp/context.h"
#include "isa/interp/execute.h"
#include "isa/interp/memory.h"
#include "isa/operands.h"

namespace dcpi::isa::interp {

// Applies an instruction's pending writes to the context.
DCPI_INTERP_INLINE void commit(Execution& x) {
  Context& c = x.c;
  if (x.write_int >= 0 && x.write_int != 31) {
    c.r[x.write_int] = x.value;
    c.written |= 1u << x.write_int;
  }
  if (x.write_fp >= 0) {
    c.fp_touched = true;
    if (x.write_fp != 31) c.f[x.write_fp] = x.value;
  }
  if (x.write_fpcr) {
    c.fpcr = x.new_fpcr;
    c.fp_touched = true;
  }
  if (x.write_int >= 0 || x.write_fp >= 0) x.out.result = x.value;
  c.pc = x.next;
}

// Interprets one instruction. On Stop::kNone the context has advanced and
// `step` describes the instruction; otherwise nothing changed.
template <class Memory>
DCPI_INTERP_INLINE Stop step(Context& c, Memory& mem, Step& out) {
  const uint64_t pc = c.pc;
  uint64_t word64 = 0;
  if ((pc & 3) != 0) return Stop::kMemoryFault;
  // Instruction fetch: a fault here is the hardware's to take.
  if (!mem.load(pc & ~uint64_t{3}, 4, word64)) return Stop::kMemoryFault;
  const uint32_t word = static_cast<uint32_t>(word64);
  const Instruction in = decode(word, DecodeMode::kUser);
  out = Step{};
  out.pc = pc;
  out.word = word;
  out.reads = fields_read(in.operation);
  const uint64_t ra = c.r[in.ra], rb_reg = c.r[in.rb];
  const uint64_t rb = in.has_literal ? in.literal : rb_reg;
  const uint64_t disp = static_cast<uint64_t>(static_cast<int64_t>(in.displacement));
  Execution x{.c = c,
              .out = out,
              .in = in,
              .word = word,
              .pc = pc,
              .next = pc + 4,
              .ra = ra,
              .rb_reg = rb_reg,
              .rb = rb,
              .fa = c.f[in.ra],
              .fb = c.f[in.rb],
              .disp = disp,
              .ea = rb_reg + disp,
              .new_fpcr = c.fpcr};
  out.a = ra;
  out.b = rb;

  Stop stop;
  switch (in.operation) {
  DCPI_INTERP_MEMORY_CASES:
    stop = execute_memory(x, mem);
    break;
  DCPI_INTERP_INTEGER_CASES:
    stop = execute_integer(x);
    break;
  DCPI_INTERP_LOGICAL_CASES:
    stop = execute_logical(x);
    break;
  DCPI_INTERP_BYTE_CASES:
    stop = execute_byte(x);
    break;
  DCPI_INTERP_EXTENSION_CASES:
    stop = execute_extension(x);
    break;
  DCPI_INTERP_FP_ARITHMETIC_CASES:
    stop = execute_fp_arithmetic(x);
    break;
  DCPI_INTERP_FP_MOVE_CASES:
    stop = execute_fp_move(x);
    break;
  DCPI_INTERP_BRANCH_CASES:
    stop = execute_branch(x);
    break;
    default:
      // VAX FP (opcode 0x15, itoff, sqrtf/g, ldf/ldg/stf/stg), rc/rs (the
      // per-CPU interrupt flag), PAL-reserved and invalid encodings.
      return Stop::kUnimplemented;
  }
  if (stop != Stop::kNone) return stop;
  if (x.write_int == 30 && c.kernel_mode) return Stop::kStackPointer;
  commit(x);
  return Stop::kNone;
}

// Runs up to `count` instructions, recording each completed one in
// steps[0..]. Returns the number completed; *why is the reason it stopped
// early (Stop::kNone if it ran them all).
// Step::named is integer register `named_register` before each instruction
// (31, the default, reads as zero).
template <class Memory>
uint32_t run(Context& c, Memory& mem, uint32_t count, Step* steps, Stop* why,
             unsigned named_register = 31) {
  uint32_t done = 0;
  Stop stop = Stop::kNone;
  while (done < count) {
    const uint64_t named = c.r[named_register & 31];
    stop = step(c, mem, steps[done]);
    if (stop != Stop::kNone) break;
    steps[done].named = named;
    ++done;
  }
  *why = stop;
  return done;
}

}  // namespace dcpi::isa::interp

#if DCPI_INTERP_UNITY
// The guest's unity build: the group files compiled here, in the caller's
// translation unit, with their entry points inlined (isa/interp/execute.h).
#include "isa/interp/branch.cpp"
#include "isa/interp/bytes.cpp"
#include "isa/interp/fp.cpp"
#include "isa/interp/integer.cpp"
#include "isa/interp/logical.cpp"
#endif
