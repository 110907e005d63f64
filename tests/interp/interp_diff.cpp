// Differential test of the value-sampling interpreter (seed 001 §2.1.2:
// "rigorous testing was used to gain confidence in the interpreter"):
// the same isa/interp core the guest kernel runs is run on the host over
// random and real instruction sequences, and its final state (integer and FP
// registers, FPCR, scratch memory) is compared with QEMU's own execution of
// the same code under qemu-alpha (user mode).
//
// Each case is a 4 KB slot of straight-line code at a fixed address:
//   prologue  loads FPCR, f0-f30, r0-r29 and the scratch buffer from the
//             case's input block; r30 = scratch + 128 (the memory base);
//   body      the instructions under test (never writing r30);
//   epilogue  stores every register, the FPCR and the scratch buffer into
//             the case's result block, then jumps to the next slot.
// Before emitting, the host interpreter runs the body; where it gives up
// (faults, traps, CALL_PAL, unimplemented), that instruction is replaced by
// a nop and the body is run again, so what QEMU runs is exactly what the
// interpreter completes. Many cases share one qemu-alpha process.
//
// Usage: interp_diff [--seed S] [--programs P] [--cases C] [--length N]
//                    [--real ELF]... [--workdir DIR] [--quiet] [--qemu PATH]
#include <unistd.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "isa/interp/interpreter.h"
#include "isa/operands.h"
#include "isa/print.h"

namespace {

using dcpi::isa::Operation;
namespace interp = dcpi::isa::interp;

constexpr uint64_t kTextBase = 0x10000000;
constexpr uint64_t kSlotBytes = 4096;
constexpr uint64_t kBodyOffset = 640;
constexpr uint64_t kDataBase = 0x20000000;
constexpr uint64_t kScratch = kDataBase;       // 256 bytes
constexpr uint64_t kOut = kDataBase + 0x100;   // 66 quadwords
constexpr uint64_t kMemBase = kScratch + 128;  // r30 during the body
constexpr uint64_t kInBase = kDataBase + 0x1000;
constexpr uint64_t kBlock = 1024;
constexpr uint32_t kNop = 0x47ff041f;  // bis $31,$31,$31
constexpr int kResultQuads = 98;       // 32 int, 32 fp, fpcr, pad, 32 scratch

struct Case {
  uint64_t r[32]{};
  uint64_t f[32]{};
  uint64_t fpcr = 0;
  uint8_t scratch[256]{};
  std::vector<uint32_t> body;
  // Expected final state from the interpreter.
  interp::Context final{};
  uint8_t final_scratch[256]{};
  std::vector<Operation> executed;
};

// ---- encoders
uint32_t operate(unsigned op, unsigned ra, unsigned rb, unsigned fn, unsigned rc) {
  return op << 26 | ra << 21 | rb << 16 | fn << 5 | rc;
}
uint32_t operate_lit(unsigned op, unsigned ra, unsigned lit, unsigned fn, unsigned rc) {
  return op << 26 | ra << 21 | lit << 13 | 1u << 12 | fn << 5 | rc;
}
uint32_t memory(unsigned op, unsigned ra, unsigned rb, int disp) {
  return op << 26 | ra << 21 | rb << 16 | (static_cast<uint32_t>(disp) & 0xffff);
}
uint32_t branch(unsigned op, unsigned ra, int disp_words) {
  return op << 26 | ra << 21 | (static_cast<uint32_t>(disp_words) & 0x1fffff);
}
void load_constant(std::vector<uint32_t>& code, unsigned reg, uint64_t value) {
  const int32_t lo = static_cast<int16_t>(value & 0xffff);
  const int32_t hi = static_cast<int32_t>((static_cast<int64_t>(value) - lo) >> 16);
  code.push_back(memory(0x09, reg, 31, hi));
  code.push_back(memory(0x08, reg, reg, lo));
}

// ---- host memory model for the interpreter
struct HostMemory {
  uint8_t* scratch;
  const std::vector<uint32_t>* body;
  uint64_t body_pc;
  bool load(uint64_t va, unsigned bytes, uint64_t& value) {
    if (va >= kScratch && va - kScratch <= 256 - bytes) {
      value = 0;
      std::memcpy(&value, scratch + (va - kScratch), bytes);
      return true;
    }
    if (bytes == 4 && va >= body_pc && va < body_pc + 4 * body->size()) {
      value = (*body)[(va - body_pc) / 4];
      return true;
    }
    return false;
  }
  bool store(uint64_t va, unsigned bytes, uint64_t value) {
    if (va >= kScratch && va - kScratch <= 256 - bytes) {
      std::memcpy(scratch + (va - kScratch), &value, bytes);
      return true;
    }
    return false;
  }
  uint64_t cycles() { return 0; }
};

uint64_t slot_address(size_t k) { return kTextBase + 0x1000 + k * kSlotBytes; }

// Runs the body with the interpreter; replaces instructions it gives up on
// by nops until it runs from the body's start to the epilogue.
bool settle(Case& c, size_t k, std::map<int, uint64_t>& stops) {
  const uint64_t body_pc = slot_address(k) + kBodyOffset;
  const uint64_t end = body_pc + 4 * c.body.size();
  for (int attempt = 0; attempt < 4096; ++attempt) {
    interp::Context ctx{};
    std::memcpy(ctx.r, c.r, sizeof ctx.r);
    std::memcpy(ctx.f, c.f, sizeof ctx.f);
    ctx.r[30] = kMemBase;
    ctx.r[31] = 0;
    ctx.f[31] = 0;
    ctx.fpcr = c.fpcr;
    ctx.pc = body_pc;
    std::memcpy(c.final_scratch, c.scratch, 256);
    HostMemory mem{c.final_scratch, &c.body, body_pc};
    c.executed.clear();
    bool again = false;
    uint64_t last_pc = body_pc;
    for (int steps = 0; ctx.pc != end; ++steps) {
      if (steps > 100000) return false;
      if (ctx.pc < body_pc || ctx.pc > end) {
        // A jump out of the body (a random register): QEMU would run off
        // into the weeds, so the jump becomes a nop like a give-up.
        c.body[(last_pc - body_pc) / 4] = kNop;
        again = true;
        break;
      }
      last_pc = ctx.pc;
      interp::Step s;
      const interp::Stop why = interp::step(ctx, mem, s);
      if (why != interp::Stop::kNone) {
        ++stops[static_cast<int>(why)];
        c.body[(ctx.pc - body_pc) / 4] = kNop;
        again = true;
        break;
      }
      c.executed.push_back(dcpi::isa::decode(s.word).operation);
    }
    if (!again) {
      c.final = ctx;
      return true;
    }
  }
  return false;
}

// ---- random generation
struct Generator {
  std::mt19937_64 rng;
  std::vector<Operation> ops;
  explicit Generator(uint64_t seed) : rng(seed) {
    using dcpi::isa::Extension;
    using dcpi::isa::Kind;
    for (size_t i = 0; i < dcpi::isa::kOperationCount; ++i) {
      const auto op = static_cast<Operation>(i);
      const auto& info = dcpi::isa::kOperations[i];
      if (info.extension == Extension::kPal) continue;
      if (info.opcode == 0x15 || op == Operation::kItoff || op == Operation::kSqrtf ||
          op == Operation::kSqrtg)
        continue;  // VAX: the interpreter gives up; no point generating them
      if (op == Operation::kLdf || op == Operation::kLdg || op == Operation::kStf ||
          op == Operation::kStg)
        continue;
      if (op == Operation::kRpcc || op == Operation::kRc || op == Operation::kRs ||
          op == Operation::kCallPal)
        continue;  // per-CPU state QEMU user mode cannot reproduce
      if (info.kind == Kind::kJump || info.kind == Kind::kJumpSubroutine ||
          info.kind == Kind::kReturn || info.kind == Kind::kCoroutine)
        continue;  // generated as a pattern below
      ops.push_back(op);
    }
  }
  uint64_t bits() { return rng(); }
  unsigned below(unsigned n) { return static_cast<unsigned>(rng() % n); }
  unsigned dest() {
    unsigned r = below(31);
    return r == 30 ? 31 : r;
  }
  uint64_t int_value() {
    switch (below(6)) {
      case 0:
        return below(256);
      case 1:
        return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(bits())));
      case 2:
        return kMemBase + 8 * (below(32) - 16);
      case 3:
        return static_cast<uint64_t>(-static_cast<int64_t>(below(16)));
      default:
        return bits();
    }
  }
  uint64_t fp_value() {
    static const uint64_t special[] = {0,
                                       0x8000000000000000ull,
                                       0x7ff0000000000000ull,
                                       0xfff0000000000000ull,
                                       0x7ff8000000000000ull,
                                       0xfff8000000000001ull,
                                       0x7ff4000000000000ull,
                                       0x0000000000000001ull,
                                       0x000fffffffffffffull,
                                       0x0010000000000000ull,
                                       0x7fefffffffffffffull,
                                       0x3ff0000000000000ull,
                                       0xbff0000000000000ull,
                                       0x4000000000000000ull,
                                       0x3fe0000000000000ull,
                                       0x43e0000000000000ull,
                                       0xc3e0000000000000ull,
                                       0x3810000000000000ull,
                                       0x47efffffe0000000ull,
                                       0x7ff8000000000123ull};
    switch (below(8)) {
      case 0:
        return special[below(sizeof special / sizeof special[0])];
      case 1: {  // an S-representable value
        const uint64_t exp = 0x380 + 1 + below(253);
        return uint64_t{below(2)} << 63 | exp << 52 | (bits() & 0xfffffe0000000ull);
      }
      case 2: {  // near 1
        return uint64_t{below(2)} << 63 | uint64_t{1023 - 4 + below(8)} << 52 |
               (bits() & 0xfffffffffffffull);
      }
      case 3: {  // small integers as doubles
        const double d = static_cast<double>(static_cast<int>(below(2001)) - 1000);
        uint64_t v;
        std::memcpy(&v, &d, 8);
        return v;
      }
      case 4: {  // extreme exponents
        const uint64_t exp = below(2) ? 1 + below(64) : 2046 - below(64);
        return uint64_t{below(2)} << 63 | exp << 52 | (bits() & 0xfffffffffffffull);
      }
      case 5:
        return bits();
      default: {
        const uint64_t exp = 900 + below(250);
        return uint64_t{below(2)} << 63 | exp << 52 | (bits() & 0xfffffffffffffull);
      }
    }
  }
  uint64_t fpcr() {
    uint64_t v = uint64_t{below(4)} << 58;          // dynamic rounding
    if (below(2)) v |= uint64_t{1} << 61;           // UNFD
    if (below(2)) v |= uint64_t{1} << 60;           // UNDZ
    if (below(4) == 0) v |= (bits() & 0x3f) << 52;  // sticky status bits
    v |= uint64_t{0x7} << 49;                       // INVD DZED OVFD
    if (below(2)) v |= uint64_t{1} << 62;           // INED
    return v;
  }

  // One instruction for operation `op` with random fields; valid per decode.
  uint32_t instruction(Operation op, size_t index, size_t length) {
    const auto& info = dcpi::isa::kOperations[static_cast<size_t>(op)];
    using dcpi::isa::Shape;
    for (int attempt = 0; attempt < 64; ++attempt) {
      uint32_t w = 0;
      switch (info.shape) {
        case Shape::kMemory:
        case Shape::kMemoryFp: {
          const bool fp = info.shape == Shape::kMemoryFp;
          const bool store = info.kind == dcpi::isa::Kind::kStore ||
                             info.kind == dcpi::isa::Kind::kStoreConditional;
          unsigned ra = fp ? below(32) : (store ? below(32) : dest());
          unsigned rb = below(8) ? 30 : below(32);
          int disp;
          if (op == Operation::kLda || op == Operation::kLdah) {
            disp = static_cast<int16_t>(bits());
            rb = below(32);
          } else {
            const unsigned bytes = info.memory_bytes ? info.memory_bytes : 1;
            disp = static_cast<int>(below(256 / bytes)) * static_cast<int>(bytes) - 128;
            if (below(16) == 0) disp += 1 + static_cast<int>(below(7));  // unaligned
          }
          w = memory(info.opcode, ra, rb, disp);
          break;
        }
        case Shape::kBranch:
        case Shape::kBranchFp: {
          const unsigned ra =
              info.shape == Shape::kBranchFp
                  ? below(32)
                  : (op == Operation::kBr || op == Operation::kBsr ? dest() : below(32));
          const size_t remaining = length - index;  // targets index+1 .. length (epilogue)
          const int disp =
              static_cast<int>(below(static_cast<unsigned>(std::min<size_t>(remaining, 12))));
          w = branch(info.opcode, ra, disp);
          break;
        }
        default: {
          // Operate and FP operate: random fields, random qualifiers for FP.
          unsigned ra = below(32), rb = below(32);
          unsigned rc = dest();
          if (info.shape == Shape::kFpUnary || info.shape == Shape::kOperateUnary ||
              info.shape == Shape::kOperateUnaryRegisterOnly || info.shape == Shape::kImplver)
            ra = 31;
          if (info.shape == Shape::kFpcr) rb = ra;
          const bool fp_dest =
              info.opcode >= 0x14 && info.opcode <= 0x17 && info.shape != Shape::kFpToInt;
          if (fp_dest) rc = info.shape == Shape::kFpcr ? ra : below(32);
          if (info.opcode >= 0x14 && info.opcode <= 0x17) {
            unsigned fn = info.function;
            if (info.opcode != 0x17 || info.qualifiers != dcpi::isa::Qualifiers::kExact)
              fn |= below(32) << 6;
            if (info.opcode == 0x17) fn = info.function;
            w = operate(info.opcode, ra, rb, 0, rc) | (fn & 0x7ff) << 5;
          } else if (below(3) == 0) {
            w = operate_lit(info.opcode, ra, below(256), info.function, rc);
          } else {
            w = operate(info.opcode, ra, rb, info.function, rc);
          }
          if (op == Operation::kFtoit || op == Operation::kFtois) {
            w = operate(info.opcode, below(32), 31, info.function, dest());
          } else if (info.opcode == 0x1c) {
            w = (w & ~(0x7fu << 5)) | (info.function & 0x7f) << 5;
          }
          if (info.shape == Shape::kImplver) w = operate_lit(0x11, 31, 1, info.function, dest());
          if (info.shape == Shape::kIntToFp)
            w = operate(info.opcode, dest(), 31, 0, below(32)) | (info.function & 0x7ff) << 5;
          if (info.opcode == 0x18)
            w = (0x18u << 26) | below(32) << 21 | below(32) << 16 | info.function;
          break;
        }
      }
      const auto in = dcpi::isa::decode(w);
      if (in.operation == op) {
        // Never write r30 (the memory base): integer destinations only.
        const auto deps = dcpi::isa::operands(in);
        if (deps.written.integer & (1u << 30)) continue;
        return w;
      }
    }
    return kNop;
  }

  Case make_case(size_t length) {
    Case c;
    for (int i = 0; i < 31; ++i) c.r[i] = int_value();
    for (int i = 0; i < 31; ++i) c.f[i] = fp_value();
    c.fpcr = fpcr();
    for (auto& b : c.scratch) b = static_cast<uint8_t>(bits());
    if (below(2))
      for (int i = 0; i < 32; ++i) {
        const uint64_t v = fp_value();
        std::memcpy(c.scratch + 8 * i, &v, 8);
      }
    c.body.resize(length, kNop);
    for (size_t i = 0; i < length; ++i) {
      if (below(24) == 0 && i + 3 < length) {
        // Computed jump pattern: bsr $k,+0; lda $k,D($k); jmp/jsr/ret $m,($k).
        const unsigned k = dest() == 31 ? 1 : dest();
        const size_t target =
            i + 3 + below(static_cast<unsigned>(std::min<size_t>(length - (i + 2), 8)));
        c.body[i] = branch(0x34, k, 0);
        c.body[i + 1] = memory(0x08, k, k, static_cast<int>((target - (i + 1)) * 4));
        c.body[i + 2] = 0x1au << 26 | dest() << 21 | k << 16 | below(4) << 14 | below(0x4000);
        i += 2;
        continue;
      }
      const Operation op = ops[below(static_cast<unsigned>(ops.size()))];
      c.body[i] = instruction(op, i, length);
      if (op == Operation::kMtFpcr && i + 1 < length) {
        // QEMU caches the flush-to-zero mode per translation block and
        // mt_fpcr does not invalidate it (translate.c resets only the
        // rounding mode), so /U ops after mt_fpcr in the same block use the
        // old UNFD/UNDZ. End the block with a taken branch over a nop, as
        // real code's mt_fpcr (in a library call) always does. Not "br +0":
        // QEMU's gen_bdirect treats a branch to the next instruction as a
        // plain PC read and keeps translating the same block.
        if (i + 2 < length) {
          c.body[++i] = branch(0x30, 31, 1);
          c.body[++i] = kNop;
        } else {
          c.body[++i] = kNop;  // only the epilogue follows: no FP arithmetic
        }
      }
    }
    return c;
  }
};

// Straight-line windows of real code: branches that do not stay forward in
// the window, jumps, and writes of r30 become nops; the rest is left to the
// settle loop.
Case real_case(Generator& g, const std::vector<uint32_t>& text, size_t length) {
  Case c = g.make_case(0);
  const size_t start = g.below(static_cast<unsigned>(text.size() - length));
  c.body.assign(text.begin() + static_cast<long>(start),
                text.begin() + static_cast<long>(start + length));
  for (size_t i = 0; i < length; ++i) {
    const auto in = dcpi::isa::decode(c.body[i]);
    const auto deps = dcpi::isa::operands(in);
    if (in.operation == Operation::kRpcc || in.operation == Operation::kRc ||
        in.operation == Operation::kRs)
      c.body[i] = kNop;
    if (deps.written.integer & (1u << 30)) c.body[i] = kNop;
    if (in.format == dcpi::isa::Format::kJump) c.body[i] = kNop;
    if (in.format == dcpi::isa::Format::kBranch) {
      const int64_t target = static_cast<int64_t>(i) + 1 + in.displacement / 4;
      if (target <= static_cast<int64_t>(i) || target > static_cast<int64_t>(length))
        c.body[i] = kNop;
    }
  }
  return c;
}

// ---- program emission
void emit_case(std::vector<uint32_t>& code, const Case& c, size_t k, size_t cases) {
  const uint64_t in = kInBase + k * kBlock;
  const uint64_t result = kInBase + cases * kBlock + k * kBlock;
  const auto rel = [](uint64_t addr) { return static_cast<int>(addr - kMemBase); };
  load_constant(code, 30, in);
  load_constant(code, 1, kScratch);
  for (int i = 0; i < 32; ++i) {
    code.push_back(memory(0x29, 0, 30, 66 * 8 + 8 * i));
    code.push_back(memory(0x2d, 0, 1, 8 * i));
  }
  code.push_back(memory(0x23, 0, 30, 64 * 8));              // ldt $f0, fpcr
  code.push_back(operate(0x17, 0, 0, 0, 0) | 0x024u << 5);  // mt_fpcr $f0
  for (int i = 0; i < 31; ++i) code.push_back(memory(0x23, i, 30, 8 * (32 + i)));
  for (int i = 0; i < 30; ++i) code.push_back(memory(0x29, i, 30, 8 * i));
  load_constant(code, 30, kMemBase);
  while (code.size() * 4 < kBodyOffset) code.push_back(kNop);
  code.insert(code.end(), c.body.begin(), c.body.end());
  // Epilogue: registers to the OUT area (r30-relative), then OUT + scratch
  // to the case's result block.
  for (int i = 0; i < 31; ++i) code.push_back(memory(0x27, i, 30, rel(kOut + 8 * (32 + i))));
  code.push_back(operate(0x17, 0, 0, 0, 0) | 0x025u << 5);  // mf_fpcr $f0
  code.push_back(memory(0x27, 0, 30, rel(kOut + 8 * 64)));
  for (int i = 0; i < 30; ++i) code.push_back(memory(0x2d, i, 30, rel(kOut + 8 * i)));
  load_constant(code, 1, result);
  for (int q = 0; q < kResultQuads; ++q) {
    const uint64_t src = q < 66 ? kOut + 8 * q : kScratch + 8 * (q - 66);
    code.push_back(memory(0x29, 0, 30, rel(src)));
    code.push_back(memory(0x2d, 0, 1, 8 * q));
  }
  load_constant(code, 27, k + 1 < cases ? slot_address(k + 1) : kTextBase + 0x100);
  code.push_back(0x1au << 26 | 31u << 21 | 27u << 16);  // jmp ($27)
}

// The program as raw text and data images included with .incbin, so that the
// assembler does no work per instruction.
bool write_program(const std::string& path, const std::vector<Case>& cases) {
  std::vector<uint32_t> text;
  load_constant(text, 27, slot_address(0));
  text.push_back(0x1au << 26 | 31u << 21 | 27u << 16);
  while (text.size() < 0x100 / 4) text.push_back(kNop);
  // finish (at text + 0x100): write(1, results, n * 1024); exit(0)
  text.push_back(memory(0x08, 16, 31, 1));
  load_constant(text, 17, kInBase + cases.size() * kBlock);
  load_constant(text, 18, cases.size() * kBlock);
  text.push_back(memory(0x08, 0, 31, 4));
  text.push_back(0x83);
  text.push_back(memory(0x08, 16, 31, 0));
  text.push_back(memory(0x08, 0, 31, 1));
  text.push_back(0x83);
  while (text.size() < 0x1000 / 4) text.push_back(kNop);
  for (size_t k = 0; k < cases.size(); ++k) {
    std::vector<uint32_t> code;
    emit_case(code, cases[k], k, cases.size());
    if (code.size() * 4 > kSlotBytes) return false;
    while (code.size() * 4 < kSlotBytes) code.push_back(kNop);
    text.insert(text.end(), code.begin(), code.end());
  }
  std::vector<uint8_t> data(kInBase - kDataBase + 2 * cases.size() * kBlock, 0);
  for (size_t k = 0; k < cases.size(); ++k) {
    uint8_t* in = data.data() + (kInBase - kDataBase) + k * kBlock;
    std::memcpy(in, cases[k].r, 256);
    std::memcpy(in + 256, cases[k].f, 256);
    std::memcpy(in + 512, &cases[k].fpcr, 8);
    std::memcpy(in + 528, cases[k].scratch, 256);
  }
  std::ofstream(path + ".text", std::ios::binary)
      .write(reinterpret_cast<const char*>(text.data()), static_cast<long>(text.size() * 4));
  std::ofstream(path + ".data", std::ios::binary)
      .write(reinterpret_cast<const char*>(data.data()), static_cast<long>(data.size()));
  std::ofstream s(path);
  s << "\t.text\n\t.globl _start\n_start:\n\t.incbin \"" << path << ".text\"\n"
    << "\t.data\n\t.incbin \"" << path << ".data\"\n";
  return static_cast<bool>(s);
}

int run(const std::string& cmd) { return std::system(cmd.c_str()); }

// A case's body (nops left out), with the FP registers it reads and the FPCR.
void print_body(const Case& c) {
  for (uint32_t w : c.body) {
    char text[96];
    dcpi::isa::disassemble(w, 0, text, sizeof text);
    if (w != kNop) std::printf("\n    %08x  %s", w, text);
  }
  std::printf("\n  fpcr in %016" PRIx64 "\n  f in:", c.fpcr);
  for (int i = 0; i < 31; ++i) std::printf("%s f%d=%016" PRIx64, i % 4 ? "" : "\n   ", i, c.f[i]);
  std::printf("\n");
}

std::vector<uint32_t> read_text(const std::string& elf, const std::string& dir) {
  const std::string bin = dir + "/text.bin";
  if (run("alpha-linux-gnu-objcopy -O binary -j .text '" + elf + "' " + bin) != 0) return {};
  std::ifstream f(bin, std::ios::binary);
  std::vector<uint32_t> words;
  uint32_t w;
  while (f.read(reinterpret_cast<char*>(&w), 4)) words.push_back(w);
  return words;
}

struct Options {
  uint64_t seed = 1;
  int programs = 4, cases_per_program = 1000;
  size_t length = 48;
  bool quiet = false;
  std::string qemu = "qemu-alpha";  // --qemu: another build (e.g. a newer QEMU)
  std::vector<std::string> real;
  std::string workdir = "/tmp/interp_diff." + std::to_string(getpid());
};

// False on an unknown argument (reported).
bool parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--seed")
      o.seed = std::stoull(next());
    else if (a == "--programs")
      o.programs = std::stoi(next());
    else if (a == "--cases")
      o.cases_per_program = std::stoi(next());
    else if (a == "--length")
      o.length = std::stoul(next());
    else if (a == "--real")
      o.real.push_back(next());
    else if (a == "--workdir")
      o.workdir = next();
    else if (a == "--quiet")
      o.quiet = true;
    else if (a == "--qemu")
      o.qemu = next();
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return false;
    }
  }
  if (o.length > 500) o.length = 500;
  return true;
}

// Assembles, links and runs `cases` under qemu-alpha: 0 ran, 1 QEMU died,
// 2 assemble/link failed.
using BuildAndRun = std::function<int(const std::vector<Case>&)>;

// The trapping instruction of a case on which QEMU died: the shortest body
// prefix (rest nops) that still dies, alone in slot 0 (only relative
// addressing matters here); prints QEMU's and the interpreter's state just
// before it and leaves the shortest dying program behind.
void diagnose_trap(const Case& dying, const std::string& base, const BuildAndRun& build_and_run) {
  Case one = dying;
  if (build_and_run({one}) != 1) return;
  size_t lo = 0, hi = one.body.size();
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    Case cut = one;
    for (size_t i = mid; i < cut.body.size(); ++i) cut.body[i] = kNop;
    (build_and_run({cut}) == 0 ? lo : hi) = mid;
  }
  // Do QEMU and the interpreter agree just before it?
  Case before = one;
  for (size_t i = hi - 1; i < before.body.size(); ++i) before.body[i] = kNop;
  std::map<int, uint64_t> ignored;
  if (settle(before, 0, ignored) && build_and_run({before}) == 0) {
    std::ifstream o(base + ".out", std::ios::binary);
    uint64_t q[kResultQuads]{};
    o.read(reinterpret_cast<char*>(q), sizeof q);
    for (int i = 0; i < 31; ++i)
      if (q[32 + i] != before.final.f[i])
        std::printf("  before it: f%d qemu %016" PRIx64 " interp %016" PRIx64 "\n", i, q[32 + i],
                    before.final.f[i]);
    if (q[64] != before.final.fpcr)
      std::printf("  before it: fpcr qemu %016" PRIx64 " interp %016" PRIx64 "\n", q[64],
                  before.final.fpcr);
  }
  // The interpreter's state just before it.
  interp::Context ctx{};
  std::memcpy(ctx.r, one.r, sizeof ctx.r);
  std::memcpy(ctx.f, one.f, sizeof ctx.f);
  ctx.r[30] = kMemBase;
  ctx.f[31] = 0;
  ctx.fpcr = one.fpcr;
  const uint64_t body_pc = slot_address(0) + kBodyOffset;
  ctx.pc = body_pc;
  uint8_t mem_bytes[256];
  std::memcpy(mem_bytes, one.scratch, 256);
  HostMemory mem{mem_bytes, &one.body, body_pc};
  for (int n = 0; n < 100000 && ctx.pc != body_pc + 4 * (hi - 1); ++n) {
    interp::Step st;
    if (interp::step(ctx, mem, st) != interp::Stop::kNone) break;
  }
  char text[96];
  dcpi::isa::disassemble(one.body[hi - 1], 0, text, sizeof text);
  std::printf("  trapping instruction %zu: %08x  %s\n  fpcr %016" PRIx64 "\n  f now:", hi - 1,
              one.body[hi - 1], text, ctx.fpcr);
  for (int i = 0; i < 31; ++i) std::printf("%s f%d=%016" PRIx64, i % 4 ? "" : "\n   ", i, ctx.f[i]);
  std::printf("\n");
  Case cut = one;
  for (size_t i = hi; i < cut.body.size(); ++i) cut.body[i] = kNop;
  build_and_run({cut});
  std::printf("  reproducer: %s.elf\n", base.c_str());
}

// QEMU's final state of one case against the interpreter's: empty if equal,
// else what differs first.
std::string first_difference(const Case& c, const uint64_t* q) {
  char what[160] = "";
  for (int i = 0; i < 30; ++i)
    if (q[i] != c.final.r[i]) {
      std::snprintf(what, sizeof what, "r%d qemu %016" PRIx64 " interp %016" PRIx64, i, q[i],
                    c.final.r[i]);
      return what;
    }
  for (int i = 0; i < 31; ++i)
    if (q[32 + i] != c.final.f[i]) {
      std::snprintf(what, sizeof what, "f%d qemu %016" PRIx64 " interp %016" PRIx64, i, q[32 + i],
                    c.final.f[i]);
      return what;
    }
  if (q[64] != c.final.fpcr) {
    std::snprintf(what, sizeof what, "fpcr qemu %016" PRIx64 " interp %016" PRIx64, q[64],
                  c.final.fpcr);
    return what;
  }
  if (std::memcmp(q + 66, c.final_scratch, 256) != 0) return "scratch memory differs";
  return "";
}

struct Tally {
  std::map<Operation, uint64_t> coverage;
  std::map<int, uint64_t> stops;
  uint64_t compared = 0, mismatches = 0, case_count = 0;
};

// One generated program: 0 compared (mismatches tallied), 1 QEMU died, 2 tool failure.
int run_program(const Options& o, int p, Generator& gen, const std::vector<uint32_t>& real_text,
                Tally& t) {
  std::vector<Case> cases;
  for (int k = 0; k < o.cases_per_program; ++k) {
    Case c = (!real_text.empty() && real_text.size() > o.length)
                 ? real_case(gen, real_text, o.length)
                 : gen.make_case(o.length);
    if (!settle(c, cases.size(), t.stops)) continue;
    cases.push_back(std::move(c));
  }
  const std::string base = o.workdir + "/p" + std::to_string(p);
  const BuildAndRun build_and_run = [&](const std::vector<Case>& these) {
    if (!write_program(base + ".s", these)) return 2;
    if (run("alpha-linux-gnu-as -o " + base + ".o " + base + ".s") != 0 ||
        run("alpha-linux-gnu-ld -Ttext=0x10000000 -Tdata=0x20000000 -e _start -o " + base +
            ".elf " + base + ".o") != 0)
      return 2;
    return run(o.qemu + " " + base + ".elf > " + base + ".out 2>/dev/null") != 0 ? 1 : 0;
  };
  if (const int status = build_and_run(cases); status != 0) {
    if (status == 2) {
      std::fprintf(stderr, "assemble/link failed for %s\n", base.c_str());
      return 2;
    }
    // QEMU died, almost always a SIGFPE: an FP trap the interpreter did not
    // predict (it would have given up, and the instruction would be a nop).
    // Every case is a mismatch then; find the first one by bisecting on
    // prefixes (slot addresses, hence results, do not depend on the count).
    size_t good = 0, bad = cases.size();
    while (bad - good > 1) {
      const size_t mid = good + (bad - good) / 2;
      const std::vector<Case> prefix(cases.begin(), cases.begin() + static_cast<long>(mid));
      (build_and_run(prefix) == 0 ? good : bad) = mid;
    }
    std::printf(
        "MISMATCH program %d case %zu: qemu-alpha died (trap the interpreter did "
        "not predict)\n  body:",
        p, bad - 1);
    print_body(cases[bad - 1]);
    diagnose_trap(cases[bad - 1], base, build_and_run);
    return 1;
  }
  std::ifstream out(base + ".out", std::ios::binary);
  std::vector<uint8_t> results((std::istreambuf_iterator<char>(out)),
                               std::istreambuf_iterator<char>());
  if (results.size() != cases.size() * kBlock) {
    std::fprintf(stderr, "short output: %zu bytes for %zu cases\n", results.size(), cases.size());
    return 2;
  }
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    uint64_t q[kResultQuads];
    std::memcpy(q, results.data() + k * kBlock, sizeof q);
    const std::string what = first_difference(c, q);
    ++t.case_count;
    t.compared += c.executed.size();
    for (Operation op : c.executed) ++t.coverage[op];
    if (!what.empty() && ++t.mismatches <= 10) {
      std::printf("MISMATCH program %d case %zu: %s\n  body:", p, k, what.c_str());
      print_body(c);
    }
  }
  return 0;
}

void print_coverage(const Tally& t) {
  std::printf("coverage by operation (instructions interpreted and compared):\n");
  for (const auto& [op, n] : t.coverage)
    std::printf("  %-10s %8" PRIu64 "\n", dcpi::isa::kOperations[static_cast<size_t>(op)].mnemonic,
                n);
  static const char* kStopNames[] = {
      "none",       "call_pal",      "memory fault",      "unaligned",
      "arithmetic", "stack pointer", "store conditional", "unimplemented"};
  std::printf("give-ups replaced by nops:\n");
  for (const auto& [why, n] : t.stops) std::printf("  %-18s %8" PRIu64 "\n", kStopNames[why], n);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_options(argc, argv, o)) return 2;
  run("mkdir -p " + o.workdir);
  std::vector<uint32_t> real_text;
  for (const auto& elf : o.real) {
    const auto t = read_text(elf, o.workdir);
    real_text.insert(real_text.end(), t.begin(), t.end());
  }
  Generator gen(o.seed);
  Tally t;
  for (int p = 0; p < o.programs; ++p)
    if (const int status = run_program(o, p, gen, real_text, t); status != 0) return status;
  if (!o.quiet) print_coverage(t);
  std::printf("interp_diff: %" PRIu64 " cases, %" PRIu64
              " instructions compared, %zu operations covered, %" PRIu64 " mismatches\n",
              t.case_count, t.compared, t.coverage.size(), t.mismatches);
  run("rm -rf " + o.workdir);
  return t.mismatches == 0 && t.compared > 0 ? 0 : 1;
}
