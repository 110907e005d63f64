// The interpreter's inside (seed 001 §2.1.2): the state of one instruction
// being executed and the entry point of each instruction group. step()
// (isa/interp/interpreter.h) fetches and decodes, dispatches on the
// operation to a group, and commits the pending register write.
//
// Groups, a translation unit per file on the host:
//   integer.cpp  integer arithmetic, compare, multiply (opcodes 0x10, 0x13)
//   logical.cpp  logical, conditional move, shift, AMASK, IMPLVER (0x11, 0x12)
//   bytes.cpp    byte manipulation (0x12) and BWX/CIX/MVI (integer 0x1c)
//   fp.cpp       FP operate, FIX, FPCR (0x14, 0x16, 0x17, FP 0x1c)
//   branch.cpp   branches, jumps, CALL_PAL
//   memory.h     lda/ldah, loads, stores, barriers, RPCC: everything that goes
//                through the caller's Memory policy, so a template
//
// On the guest the group files are compiled into the value sampler's
// translation unit instead (DCPI_INTERP_UNITY, bottom of interpreter.h), with
// every group entry point inlined into step() and step() into the sampler's
// loop, as when the interpreter was one header: no call per interpreted
// instruction in the interrupt handler. What value sampling costs in guest
// instructions is measured by tests/bench/bench_values.py.
#pragma once
#include <cstdint>

#include "isa/decode.h"
#include "isa/interp/context.h"

#ifndef DCPI_INTERP_UNITY
#if defined(__alpha__)
#define DCPI_INTERP_UNITY 1
#else
#define DCPI_INTERP_UNITY 0
#endif
#endif

// DCPI_INTERP_GROUP marks the group entry points, DCPI_INTERP_INLINE the
// pieces step() was written as before the split (so forced inline on the
// guest, like the entry points).
#if DCPI_INTERP_UNITY
#define DCPI_INTERP_GROUP [[gnu::always_inline]] inline
#define DCPI_INTERP_INLINE [[gnu::always_inline]] inline
#else
#define DCPI_INTERP_GROUP
#define DCPI_INTERP_INLINE inline
#endif

namespace dcpi::isa::interp {

// AMASK bits and IMPLVER of QEMU's default Alpha CPU (EV67: BWX, FIX, CIX,
// MVI, precise traps, prefetch-with-modify).
inline constexpr uint64_t kAmaskImplemented = 0x1307;
inline constexpr uint64_t kImplver = 2;

// FPCR fields (Alpha Architecture Handbook 4.7.8).
inline constexpr uint64_t kFpcrUndz = uint64_t{1} << 60;
inline constexpr uint64_t kFpcrUnfd = uint64_t{1} << 61;
inline constexpr int kFpcrDynShift = 58;
inline constexpr int kFpcrStatusShift = 52;

// One instruction in flight: its operands as read before it runs, and the
// register write it will make. Nothing reaches the Context until commit(), so
// a group that gives up (returns a Stop) leaves the context untouched -- apart
// from Context::fp_touched, which only says FP state was looked at.
struct Execution {
  Context& c;
  Step& out;
  const Instruction& in;
  uint32_t word;
  uint64_t pc;
  uint64_t next;            // the PC after this instruction
  uint64_t ra, rb_reg, rb;  // rb: the literal if the instruction has one
  uint64_t fa, fb;
  uint64_t disp;                      // sign-extended displacement
  uint64_t ea;                        // memory format: Rb + displacement
  int write_int = -1, write_fp = -1;  // pending register write (integer or FP)
  uint64_t value = 0;
  bool write_fpcr = false;
  uint64_t new_fpcr;

  void set_int(uint64_t v) {
    write_int = in.rc;
    value = v;
  }
  void set_fp(uint64_t v) {
    write_fp = in.rc;
    value = v;
    out.fp_values = kFpA | kFpB | kFpResult;
    out.a = fa;
    out.b = fb;
  }
};

inline uint64_t sext32(uint64_t v) {
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
}

// FP condition on a register image, -0 treated as +0 (QEMU gen_fold_mzero).
inline bool fp_condition(unsigned opcode_low3, uint64_t v) {
  const int64_t s = static_cast<int64_t>(v);
  const bool zero = (v << 1) == 0;
  switch (opcode_low3) {  // fb* opcodes 0x31..0x37 / fcmov functions 0x2a..0x2f
    case 0:
      return zero;  // eq
    case 1:
      return !zero && s < 0;  // lt
    case 2:
      return zero || s < 0;  // le
    case 3:
      return !zero;  // ne
    case 4:
      return zero || s >= 0;  // ge
    case 5:
      return !zero && s > 0;  // gt
  }
  return false;
}

// The group entry points: each executes the operations its case list below
// names and returns Stop::kNone to commit, or why the interpreter gives up.
DCPI_INTERP_GROUP Stop execute_integer(Execution& x);        // integer.cpp
DCPI_INTERP_GROUP Stop execute_logical(Execution& x);        // logical.cpp
DCPI_INTERP_GROUP Stop execute_byte(Execution& x);           // bytes.cpp
DCPI_INTERP_GROUP Stop execute_extension(Execution& x);      // bytes.cpp
DCPI_INTERP_GROUP Stop execute_fp_arithmetic(Execution& x);  // fp.cpp
DCPI_INTERP_GROUP Stop execute_fp_move(Execution& x);        // fp.cpp
DCPI_INTERP_GROUP Stop execute_branch(Execution& x);         // branch.cpp
// execute_memory(Execution&, Memory&): memory.h

// The operations of each group, as the case labels step() dispatches on
// (a switch on the operation: no table lookup of the group first).
// An operation in two lists does not compile (duplicate case); one a list
// names but its group does not handle gives up as Stop::kUnimplemented, which
// the differential tests against QEMU (tests/interp) report.
// clang-format off
#define DCPI_INTERP_INTEGER_CASES \
  case Operation::kAddl: case Operation::kS4addl: case Operation::kS8addl: \
  case Operation::kSubl: case Operation::kS4subl: case Operation::kS8subl: \
  case Operation::kAddq: case Operation::kS4addq: case Operation::kS8addq: \
  case Operation::kSubq: case Operation::kS4subq: case Operation::kS8subq: \
  case Operation::kAddlV: case Operation::kSublV: case Operation::kAddqV: \
  case Operation::kSubqV: case Operation::kCmpbge: case Operation::kCmpult: \
  case Operation::kCmpule: case Operation::kCmpeq: case Operation::kCmplt: \
  case Operation::kCmple: case Operation::kMull: case Operation::kMulq: \
  case Operation::kUmulh: case Operation::kMullV: case Operation::kMulqV
#define DCPI_INTERP_LOGICAL_CASES \
  case Operation::kAnd: case Operation::kBic: case Operation::kBis: \
  case Operation::kOrnot: case Operation::kXor: case Operation::kEqv: \
  case Operation::kAmask: case Operation::kImplver: case Operation::kCmovlbs: \
  case Operation::kCmovlbc: case Operation::kCmoveq: case Operation::kCmovne: \
  case Operation::kCmovlt: case Operation::kCmovge: case Operation::kCmovle: \
  case Operation::kCmovgt: case Operation::kSll: case Operation::kSrl: \
  case Operation::kSra
#define DCPI_INTERP_BYTE_CASES \
  case Operation::kZap: case Operation::kZapnot: case Operation::kExtbl: \
  case Operation::kExtwl: case Operation::kExtll: case Operation::kExtql: \
  case Operation::kExtwh: case Operation::kExtlh: case Operation::kExtqh: \
  case Operation::kInsbl: case Operation::kInswl: case Operation::kInsll: \
  case Operation::kInsql: case Operation::kInswh: case Operation::kInslh: \
  case Operation::kInsqh: case Operation::kMskbl: case Operation::kMskwl: \
  case Operation::kMskll: case Operation::kMskql: case Operation::kMskwh: \
  case Operation::kMsklh: case Operation::kMskqh
#define DCPI_INTERP_EXTENSION_CASES \
  case Operation::kSextb: case Operation::kSextw: case Operation::kCtpop: \
  case Operation::kCtlz: case Operation::kCttz: case Operation::kPerr: \
  case Operation::kPklb: case Operation::kPkwb: case Operation::kUnpkbl: \
  case Operation::kUnpkbw: case Operation::kMinsb8: case Operation::kMinsw4: \
  case Operation::kMinub8: case Operation::kMinuw4: case Operation::kMaxsb8: \
  case Operation::kMaxsw4: case Operation::kMaxub8: case Operation::kMaxuw4
#define DCPI_INTERP_FP_ARITHMETIC_CASES \
  case Operation::kSqrts: case Operation::kSqrtt: case Operation::kAdds: \
  case Operation::kSubs: case Operation::kMuls: case Operation::kDivs: \
  case Operation::kAddt: case Operation::kSubt: case Operation::kMult: \
  case Operation::kDivt: case Operation::kCmptun: case Operation::kCmpteq: \
  case Operation::kCmptlt: case Operation::kCmptle: case Operation::kCvtts: \
  case Operation::kCvtst: case Operation::kCvttq: case Operation::kCvtqs: \
  case Operation::kCvtqt
#define DCPI_INTERP_FP_MOVE_CASES \
  case Operation::kItofs: case Operation::kItoft: case Operation::kFtoit: \
  case Operation::kFtois: case Operation::kCvtlq: case Operation::kCvtql: \
  case Operation::kCvtqlV: case Operation::kCvtqlSv: case Operation::kCpys: \
  case Operation::kCpysn: case Operation::kCpyse: case Operation::kMtFpcr: \
  case Operation::kMfFpcr: case Operation::kFcmoveq: case Operation::kFcmovne: \
  case Operation::kFcmovlt: case Operation::kFcmovge: case Operation::kFcmovle: \
  case Operation::kFcmovgt
#define DCPI_INTERP_BRANCH_CASES \
  case Operation::kBr: case Operation::kBsr: case Operation::kBlbc: case Operation::kBeq: \
  case Operation::kBlt: case Operation::kBle: case Operation::kBlbs: case Operation::kBne: \
  case Operation::kBge: case Operation::kBgt: case Operation::kFbeq: \
  case Operation::kFblt: case Operation::kFble: case Operation::kFbne: \
  case Operation::kFbge: case Operation::kFbgt: case Operation::kJmp: \
  case Operation::kJsr: case Operation::kRet: case Operation::kJsrCoroutine: \
  case Operation::kCallPal
#define DCPI_INTERP_MEMORY_CASES \
  case Operation::kLda: case Operation::kLdah: case Operation::kLdbu: \
  case Operation::kLdwu: case Operation::kLdl: case Operation::kLdq: \
  case Operation::kLdlL: case Operation::kLdqL: case Operation::kLdqU: \
  case Operation::kLds: case Operation::kLdt: case Operation::kStb: case Operation::kStw: \
  case Operation::kStl: case Operation::kStq: case Operation::kStqU: case Operation::kSts: \
  case Operation::kStt: case Operation::kStlC: case Operation::kStqC: \
  case Operation::kTrapb: case Operation::kExcb: case Operation::kMb: \
  case Operation::kWmb: case Operation::kFetch: case Operation::kFetchM: \
  case Operation::kEcb: case Operation::kWh64: case Operation::kWh64en: \
  case Operation::kRpcc
// clang-format on

}  // namespace dcpi::isa::interp
