// Interpreter group: branches, jumps and CALL_PAL. CALL_PAL gives up (seed
// 001 §2.1.2: it changes IPL or enters a system call, PALcode's business).
#include "isa/interp/execute.h"

namespace dcpi::isa::interp {
namespace {

// The integer conditional branch condition on Ra.
DCPI_INTERP_INLINE bool branch_taken(Operation op, uint64_t ra) {
  const int64_t s = static_cast<int64_t>(ra);
  switch (op) {
    case Operation::kBlbc:
      return !(ra & 1);
    case Operation::kBeq:
      return s == 0;
    case Operation::kBlt:
      return s < 0;
    case Operation::kBle:
      return s <= 0;
    case Operation::kBlbs:
      return ra & 1;
    case Operation::kBne:
      return s != 0;
    case Operation::kBge:
      return s >= 0;
    default:
      return s > 0;
  }
}

}  // namespace

DCPI_INTERP_GROUP Stop execute_branch(Execution& x) {
  switch (x.in.operation) {
    case Operation::kBr:
    case Operation::kBsr:
      x.write_int = x.in.ra;
      x.value = x.pc + 4;
      x.next = x.pc + 4 + x.disp;
      break;
    case Operation::kBlbc:
    case Operation::kBeq:
    case Operation::kBlt:
    case Operation::kBle:
    case Operation::kBlbs:
    case Operation::kBne:
    case Operation::kBge:
    case Operation::kBgt: {
      const bool taken = branch_taken(x.in.operation, x.ra);
      x.out.result = taken;
      if (taken) x.next = x.pc + 4 + x.disp;
      break;
    }
    case Operation::kFbeq:
    case Operation::kFblt:
    case Operation::kFble:
    case Operation::kFbne:
    case Operation::kFbge:
    case Operation::kFbgt: {
      static constexpr unsigned kCond[] = {0, 0, 1, 2, 0, 3, 4, 5};  // by opcode & 7
      const bool taken = fp_condition(kCond[x.in.opcode & 7], x.fa);
      x.out.fp_values = kFpA;  // the result is taken/untaken
      x.out.a = x.fa;
      x.out.result = taken;
      x.c.fp_touched = true;
      if (taken) x.next = x.pc + 4 + x.disp;
      break;
    }
    case Operation::kJmp:
    case Operation::kJsr:
    case Operation::kRet:
    case Operation::kJsrCoroutine:
      x.out.b = x.rb_reg;
      x.next = x.rb_reg & ~uint64_t{3};
      x.write_int = x.in.ra;
      x.value = x.pc + 4;
      break;
    case Operation::kCallPal:
      return Stop::kCallPal;
    default:
      return Stop::kUnimplemented;
  }
  return Stop::kNone;
}

}  // namespace dcpi::isa::interp
