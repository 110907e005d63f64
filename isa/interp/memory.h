// Interpreter group: the memory format -- address computation (lda, ldah),
// loads, stores, the barriers and prefetch hints -- and RPCC: every operation
// that goes through the caller's Memory policy, so a template on it (on the
// guest the policy walks the interrupted process's page tables, inlined).
#pragma once
#include "isa/interp/execute.h"
#include "isa/interp/softfloat.h"

namespace dcpi::isa::interp {

template <class Memory>
DCPI_INTERP_INLINE Stop execute_load(Execution& x, Memory& mem) {
  const Instruction& in = x.in;
  // A load into R31/F31 is a prefetch: no access, no fault (QEMU skips it).
  if (in.ra == 31) return Stop::kNone;
  const unsigned bytes = in.info().memory_bytes;
  uint64_t va = x.ea;
  if (in.operation == Operation::kLdqU) va &= ~uint64_t{7};
  if (va & (bytes - 1)) return Stop::kUnaligned;
  uint64_t v = 0;
  const uint64_t t0 = mem.cycles();
  if (!mem.load(va, bytes, v)) return Stop::kMemoryFault;
  x.out.latency = mem.cycles() - t0;
  x.out.has_memory = true;
  x.out.load = true;
  x.out.va = va;
  if (in.operation == Operation::kLdl || in.operation == Operation::kLdlL) v = sext32(v);
  if (in.operation == Operation::kLds || in.operation == Operation::kLdt) {
    if (in.operation == Operation::kLds) v = fp::s_register_from_float32(static_cast<uint32_t>(v));
    x.write_fp = in.ra;
    x.out.fp_values = kFpResult;  // a is the destination, b the integer base
  } else {
    x.write_int = in.ra;
  }
  x.value = v;
  return Stop::kNone;
}

template <class Memory>
DCPI_INTERP_INLINE Stop execute_store(Execution& x, Memory& mem) {
  const Instruction& in = x.in;
  const unsigned bytes = in.info().memory_bytes;
  uint64_t va = x.ea;
  if (in.operation == Operation::kStqU) va &= ~uint64_t{7};
  if (va & (bytes - 1)) return Stop::kUnaligned;
  uint64_t v = x.ra;
  if (in.operation == Operation::kSts) v = fp::float32_from_s_register(x.fa);
  if (in.operation == Operation::kStt) v = x.fa;
  if (in.operation == Operation::kSts || in.operation == Operation::kStt) {
    x.out.fp_values = kFpA | kFpResult;  // Fa and the value stored; b is the integer base
    x.out.a = x.fa;
    x.c.fp_touched = true;
  }
  const uint64_t t0 = mem.cycles();
  if (!mem.store(va, bytes, v)) return Stop::kMemoryFault;
  x.out.latency = mem.cycles() - t0;
  x.out.has_memory = true;
  x.out.va = va;
  x.out.result = v;
  return Stop::kNone;
}

template <class Memory>
DCPI_INTERP_INLINE Stop execute_memory(Execution& x, Memory& mem) {
  switch (x.in.operation) {
    case Operation::kLda:
      x.set_int(x.ea);
      x.write_int = x.in.ra;
      break;
    case Operation::kLdah:
      x.set_int(x.rb_reg + (x.disp << 16));
      x.write_int = x.in.ra;
      break;
    case Operation::kLdbu:
    case Operation::kLdwu:
    case Operation::kLdl:
    case Operation::kLdq:
    case Operation::kLdlL:
    case Operation::kLdqL:
    case Operation::kLdqU:
    case Operation::kLds:
    case Operation::kLdt:
      return execute_load(x, mem);
    case Operation::kStb:
    case Operation::kStw:
    case Operation::kStl:
    case Operation::kStq:
    case Operation::kStqU:
    case Operation::kSts:
    case Operation::kStt:
      return execute_store(x, mem);
    case Operation::kStlC:
    case Operation::kStqC:
      return Stop::kStoreConditional;
    case Operation::kTrapb:
    case Operation::kExcb:
    case Operation::kMb:
    case Operation::kWmb:
    case Operation::kFetch:
    case Operation::kFetchM:
    case Operation::kEcb:
    case Operation::kWh64:
    case Operation::kWh64en:
      break;  // no architectural effect on QEMU (wh64 does not zero there either)
    case Operation::kRpcc:
      x.write_int = x.in.ra;
      x.value = mem.cycles();
      break;
    default:
      return Stop::kUnimplemented;
  }
  return Stop::kNone;
}

}  // namespace dcpi::isa::interp
