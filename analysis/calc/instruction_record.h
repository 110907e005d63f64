// The instruction as dcpicalc sees it (DCPI §6.1.1, §6.3): an opaque record
// that the ISA decoder (isa/, issue 7) fills and that the CFG builder and the
// processor models read. Nothing here decodes Alpha bits; the decoder maps
// each instruction to an issue class, its register operands and its control
// flow, and the models know the rest.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dcpi::calc {

// An Alpha register: integer r0–r31 or floating f0–f31. r31 and f31 read as
// zero and discard writes, so they never create a dependency.
struct Register {
  uint8_t number = 31;
  bool floating = false;

  bool is_zero() const { return number == 31; }
  bool operator==(const Register&) const = default;
};

inline Register int_register(uint8_t number) { return Register{number, false}; }
inline Register fp_register(uint8_t number) { return Register{number, true}; }

// Scheduling class: which pipes an instruction may issue to and which
// latency its result has. The names follow the instruction types of GCC's
// alpha.md / ev5.md, which DESIGN §8 cites for the 21164 numbers.
enum class IssueClass : uint8_t {
  kIntLoad,          // ldq, ldl, ldbu, ldwu, ldq_u
  kIntStore,         // stq, stl, stb, stw, stq_u
  kLoadAddress,      // lda, ldah (an integer add)
  kIntAdd,           // addq, subq, s4addq, …
  kIntLogic,         // and, bis, xor, bic, ornot, eqv
  kIntCompare,       // cmpeq, cmplt, cmpult, cmpbge, …
  kIntCondMove,      // cmoveq, cmovne, …
  kIntShift,         // sll, srl, sra, ext*, ins*, msk*, zap, zapnot
  kIntMultimedia,    // MVI (minub8, perr, …): E0, latency 2
  kIntMultiply32,    // mull, mullv
  kIntMultiply64,    // mulq, mulqv
  kIntMultiplyHigh,  // umulh
  kBranch,           // beq, bne, blt, br, bsr, …
  kJump,             // jmp, jsr, ret, jsr_coroutine
  kCallPal,          // call_pal
  kFpLoad,           // lds, ldt, ldf, ldg
  kFpStore,          // sts, stt, stf, stg
  kFpAdd,            // adds, addt, subt, cmpt*, cvt*, fcmov*
  kFpMultiply,       // muls, mult
  kFpCopySign,       // cpys, cpysn, cpyse (also fmov, fneg)
  kFpDivideSingle,   // divs
  kFpDivideDouble,   // divt
  kFpBranch,         // fbeq, fbne, …
  kMemoryBarrier,    // mb, wmb (issue like a store)
  kMisc,             // trapb, excb, rpcc, rs/rc, fetch, hw_* …
};

// How an instruction changes control flow; the CFG builder (§6.1.1) needs
// only this and the static target.
enum class ControlFlow : uint8_t {
  kNone,                 // falls through
  kConditionalBranch,    // target or fall through
  kUnconditionalBranch,  // br: always the target
  kCall,                 // bsr / jsr: returns to the next instruction
  kIndirectJump,         // jmp: jump_targets if resolved (a jump table), else missing edges
  kReturn,               // ret: leaves the procedure
  kHalt,                 // never falls through (e.g. call_pal halt)
};

// Which field of the instruction word an operand comes from. Figure 2's
// culprit column and §6.3's static stall reasons name it ("Ra dependency").
enum class OperandField : uint8_t { kRa, kRb, kRc };

struct SourceOperand {
  Register reg;
  OperandField field = OperandField::kRa;
};

struct InstructionRecord {
  uint64_t address = 0;
  uint32_t encoding = 0;  // the raw instruction word, for printing
  std::string text;       // disassembly (isa/ printer), for reports only
  IssueClass issue_class = IssueClass::kIntAdd;
  std::optional<SourceOperand> source_a;  // read from Ra (or Fa)
  std::optional<SourceOperand> source_b;  // read from Rb (or Fb); literals are not registers
  // Read from Rc (or Fc): a conditional move that does not move keeps the old
  // value, so the destination is also a source (a dependency on its producer).
  std::optional<SourceOperand> source_c;
  std::optional<Register> destination;  // written (Ra for loads/lda/br/jsr, Rc for operates)
  ControlFlow control_flow = ControlFlow::kNone;
  std::optional<uint64_t> branch_target;  // for direct branches and bsr
  // A resolved indirect jump's targets (a switch table, jump_tables.h):
  // distinct, inside the procedure. Empty: unknown (missing edges).
  std::vector<uint64_t> jump_targets;
};

}  // namespace dcpi::calc
