#include "kernel/fp_completion.h"

#include "driver/kernel_services.h"
#include "kernel/address_space.h"
#include "kernel/soft_float.h"

namespace kernel::fp {

namespace {

// The software control word (asm/fpu.h): trap enables, denormal mappings,
// status; an exception's status bit is its trap-enable bit << 16.
constexpr uint64_t kTrapEnableMask = 0x7e;  // INV DZE OVF UNF INE DNO
constexpr uint64_t kMapDmz = 1ull << 12, kMapUmz = 1ull << 13;
constexpr uint64_t kStatusMask = 0x7e0000;  // the same six, << 16
constexpr uint64_t kSoftwareMask = kTrapEnableMask | kMapDmz | kMapUmz | kStatusMask;
constexpr unsigned kStatusShift = 16;
constexpr uint64_t kInv = 1ull << 1, kDno = 1ull << 6;

// The FPCR (Alpha Architecture Handbook 4.7.8).
constexpr uint64_t kFpcrUndz = 1ull << 60, kFpcrUnfd = 1ull << 61, kFpcrSum = 1ull << 63;
constexpr uint64_t kFpcrMask = 0xffff800000000000ull;  // every defined bit
constexpr uint64_t kFpcrDynMask = 3ull << 58;          // the dynamic rounding mode
constexpr uint64_t kFpcrDynNormal = 2ull << 58;

// Summary bits of an arithmetic trap (a0): software completion, then the
// exceptions in the trap-enable bits' places, and integer overflow.
constexpr uint64_t kSummarySwc = 1, kSummaryIov = 1ull << 6;

// Linux's ieee_swcr_to_fpcr.
uint64_t fpcr_of(uint64_t sw) {
  uint64_t fp = (sw & kStatusMask) << 35;
  fp |= (sw & kMapDmz) << 36;
  fp |= (sw & kStatusMask) != 0 ? kFpcrSum : 0;
  fp |= (~sw & 0xe) << 48;   // INVD DZED OVFD
  fp |= (~sw & 0x30) << 57;  // UNFD INED
  fp |= (sw & kMapUmz) != 0 ? kFpcrUndz | kFpcrUnfd : 0;
  fp |= (~sw & kDno) << 41;  // DNOD
  return fp;
}

// The word with the status the FPCR has accumulated (swcr_update_status).
uint64_t with_status(uint64_t stored, uint64_t fpcr) {
  return (stored & ~kStatusMask) | ((fpcr >> 35) & kStatusMask);
}

void write_fpcr(uint64_t fp[33], uint64_t sw) {
  fp[32] = (fp[32] & (~kFpcrMask | kFpcrDynMask)) | fpcr_of(sw);
}

bool is_nan(uint64_t v) { return (v >> 52 & 0x7ff) == 0x7ff && (v & 0xfffffffffffffull) != 0; }
bool is_signaling(uint64_t v) { return is_nan(v) && (v & (1ull << 51)) == 0; }
bool is_denormal(uint64_t v) { return (v >> 52 & 0x7ff) == 0 && (v & 0xfffffffffffffull) != 0; }
// T-format values in an order integers compare in (+0 and -0 equal).
int64_t order_key(uint64_t v) {
  const int64_t magnitude = static_cast<int64_t>(v & ~(1ull << 63));
  return v >> 63 ? -magnitude : magnitude;
}

// A CMPTxx (opcode 0x16, function 0x24-0x27 in fn11's low six bits) whose
// operand was a denormal: QEMU trapped before comparing. Linux's math-emu
// compares in software, raising DNO for the denormal and INV for a NaN
// (any NaN for LT and LE, a signaling one for EQ and UN). False if the
// instruction is something else.
bool emulate_compare(Process* self, uint64_t pc, uint64_t fp[33], uint64_t* exceptions) {
  uint32_t insn = 0;
  if (!copy_from_user(self->space(), &insn, pc - 4, sizeof insn)) return false;
  const uint32_t function = insn >> 5 & 0x3f;
  if (insn >> 26 != 0x16 || function < 0x24 || function > 0x27) return false;
  const uint64_t a = fp[insn >> 21 & 31], b = fp[insn >> 16 & 31];
  uint64_t raised = 0;
  if (is_denormal(a) || is_denormal(b)) raised |= kDno;
  bool result = false;
  if (is_nan(a) || is_nan(b)) {
    result = function == 0x24;  // CMPTUN
    if (function >= 0x26 || is_signaling(a) || is_signaling(b)) raised |= kInv;
  } else {
    const int64_t x = order_key(a), y = order_key(b);
    result = function == 0x25   ? x == y
             : function == 0x26 ? x < y
             : function == 0x27 ? x <= y
                                : false;
  }
  const unsigned rc = insn & 31;
  if (rc != 31) fp[rc] = result ? 0x4000000000000000ull : 0;  // 2.0 for true
  *exceptions = raised;
  return true;
}

// ADDT, SUBT, MULT, DIVT, SQRTT, CVTTS and CVTTQ with a denormal operand:
// computed in integers (kernel/soft_float.h) in the instruction's rounding
// mode (or the FPCR's dynamic one), as Linux's math-emu does, which also
// raises DNO for the denormal and records every exception the operation
// raised, whatever the /U and /I qualifiers; MAP_UMZ makes an underflow 0.
bool emulate_arithmetic(Process* self, uint64_t pc, uint64_t fp[33], uint64_t* exceptions) {
  uint32_t insn = 0;
  if (!copy_from_user(self->space(), &insn, pc - 4, sizeof insn)) return false;
  const uint32_t opcode = insn >> 26, function = insn >> 5 & 0x3f;
  const uint64_t rounding = insn >> 11 & 3;  // fn11 bits 6-7: C, M, N, D
  const auto mode = static_cast<soft_float::Rounding>(rounding == 3 ? fp[32] >> 58 & 3 : rounding);
  const uint64_t a = fp[insn >> 21 & 31], b = fp[insn >> 16 & 31];
  soft_float::Result r;
  if (opcode == 0x16 && function >= 0x20 && function <= 0x23)  // ADDT SUBT MULT DIVT
    r = soft_float::compute(static_cast<soft_float::Op>(function - 0x20), a, b, mode);
  else if (opcode == 0x14 && function == 0x2b)  // SQRTT
    r = soft_float::compute(soft_float::Op::kSqrt, a, b, mode);
  else if (opcode == 0x16 && function == 0x2c && is_denormal(b))  // CVTTS
    r = soft_float::detail::denormal_to_single(b, mode);
  else if (opcode == 0x16 && function == 0x2f && is_denormal(b))  // CVTTQ
    r = soft_float::detail::denormal_to_quad(b, mode);
  else
    return false;
  if ((r.exceptions & soft_float::kUnderflow) && (self->ieee_fp_control & kMapUmz))
    r.bits &= 1ull << 63;
  const unsigned rc = insn & 31;
  if (rc != 31) fp[rc] = r.bits;
  *exceptions = r.exceptions | (is_denormal(a) || is_denormal(b) ? kDno : 0);
  return true;
}

}  // namespace

uint64_t read_control(const Process* self) {
  uint64_t fp[33];
  fp_save(fp);
  fp_restore_f0(fp);
  return with_status(self->ieee_fp_control & kSoftwareMask, fp[32]);
}

void write_control(Process* self, uint64_t swcr) {
  self->ieee_fp_control = swcr & kSoftwareMask;
  uint64_t fp[33];
  fp_save(fp);
  write_fpcr(fp, swcr);
  fp_restore(fp);
}

bool raise_exceptions(Process* self, uint64_t status) {
  status &= kStatusMask;
  const uint64_t sw = (self->ieee_fp_control & kSoftwareMask) | status;
  self->ieee_fp_control |= status;
  uint64_t fp[33];
  fp_save(fp);
  fp[32] |= fpcr_of(sw);
  fp_restore(fp);
  return ((status >> kStatusShift) & sw & kTrapEnableMask) != 0;  // new ones only
}

uint64_t initial_fpcr() { return kFpcrDynNormal | fpcr_of(0); }

bool complete_trap(Process* self, uint64_t summary, uint64_t mask, TrapFrame* frame) {
  if ((summary & kSummarySwc) == 0) return false;  // no /S: the trap is the program's
  uint64_t fp[33];
  fp_save(fp);
  fp_restore_f0(fp);
  uint64_t exceptions = 0;
  if (mask != 0) {
    // The result is in its register: only the exceptions are left to record.
    exceptions = summary & kTrapEnableMask & ~kDno;
    if (summary & kSummaryIov) exceptions |= kInv;  // CVTTQ/SV out of range
  } else if (!emulate_compare(self, frame->pc, fp, &exceptions) &&
             !emulate_arithmetic(self, frame->pc, fp, &exceptions)) {
    return false;  // a denormal operand of an operation not emulated here
  }
  const uint64_t sw = with_status(self->ieee_fp_control, fp[32]) | exceptions << kStatusShift;
  self->ieee_fp_control = (self->ieee_fp_control & ~kStatusMask) | (sw & kStatusMask);
  write_fpcr(fp, sw);
  fp_restore(fp);
  return (exceptions & sw & kTrapEnableMask) == 0;
}

}  // namespace kernel::fp
