// isa/: decode, operands, classes, EV5 timing and printing on hand-picked
// encodings (the exhaustive comparison with objdump is isa_oracle_test.cpp).
#include "isa/isa.h"

#include <gtest/gtest.h>

#include <string>

#include "symbols/disassembler.h"

namespace dcpi::isa {
namespace {

constexpr uint32_t bit(unsigned r) { return 1u << r; }
constexpr unsigned kT0 = 1, kT1 = 2, kT2 = 3, kRa = 26, kT12 = 27, kSp = 30;

std::string text(uint32_t word, uint64_t pc = 0, DecodeMode mode = DecodeMode::kUser) {
  char buffer[128];
  disassemble(word, pc, buffer, sizeof buffer, mode);
  return buffer;
}

TEST(IsaDecode, FormatFollowsOpcode) {
  EXPECT_EQ(decode(0x00000080).format, Format::kPal);             // bpt
  EXPECT_EQ(decode(0xa43ffff0).format, Format::kMemory);          // ldq
  EXPECT_EQ(decode(0x63ff4000).format, Format::kMemoryFunction);  // mb
  EXPECT_EQ(decode(0x6b5b4000).format, Format::kJump);            // jsr
  EXPECT_EQ(decode(0xc3e00005).format, Format::kBranch);          // br
  EXPECT_EQ(decode(0x40220401).format, Format::kOperate);         // addq
  EXPECT_EQ(decode(0x58221403).format, Format::kFpOperate);       // addt
  EXPECT_EQ(decode(0x643f00f9).format, Format::kPalReserved);     // pal19 outside PALcode
  EXPECT_EQ(decode(0x643f00f9, DecodeMode::kPalcode).format, Format::kHardware);
  EXPECT_EQ(decode(0x04000000).format, Format::kInvalid);  // opcode 0x01 is reserved
}

TEST(IsaDecode, MemoryFields) {
  const Instruction in = decode(0xa43ffff0);  // ldq t0,-16(zero)
  EXPECT_EQ(in.operation, Operation::kLdq);
  EXPECT_EQ(in.ra, kT0);
  EXPECT_EQ(in.rb, 31);
  EXPECT_EQ(in.displacement, -16);
  EXPECT_STREQ(in.info().mnemonic, "ldq");
}

TEST(IsaDecode, OperateLiteralAndRegisterForms) {
  const Instruction reg = decode(0x40220403);  // addq t0,t1,t2
  EXPECT_FALSE(reg.has_literal);
  EXPECT_EQ(reg.rb, kT1);
  EXPECT_EQ(reg.rc, kT2);
  const Instruction lit = decode(0x4020b403);  // addq t0,0x5,t2
  EXPECT_TRUE(lit.has_literal);
  EXPECT_EQ(lit.literal, 5);
  EXPECT_EQ(lit.operation, Operation::kAddq);
}

TEST(IsaDecode, FpQualifiersAreDecodedAndValidated) {
  // addt/sui: trap 7, rounding normal.
  const Instruction addt = decode(0x58000000u | (0x7a0u << 5) | (1 << 21) | (2 << 16) | 3);
  EXPECT_EQ(addt.operation, Operation::kAddt);
  EXPECT_EQ(addt.fp_trap, 7);
  EXPECT_EQ(addt.fp_rounding, static_cast<uint8_t>(FpRounding::kNormal));
  EXPECT_EQ(text(addt.word), "addt/sui\t$f1,$f2,$f3");
  // cvttq/svc spells the trap qualifier with v; cvtqt has no /su form.
  EXPECT_EQ(text(0x5be0a5e3u), "cvttq/svc\t$f0,$f3");
  EXPECT_FALSE(decode(0x58000000u | (0x5beu << 5) | (31 << 21)).valid());
  EXPECT_EQ(text(0x58000000u | (0x7beu << 5) | (31 << 21) | 3), "cvtqt/sui\t$f0,$f3");
}

TEST(IsaDecode, FieldsThatMustBeZeroRegister) {
  EXPECT_EQ(decode(0x73e20003).operation, Operation::kSextb);  // sextb t1,t2
  EXPECT_FALSE(decode(0x70220003).valid());                    // sextb with Ra != R31
  EXPECT_FALSE(decode(0x73e0b003).valid());                    // sextb has no literal form
  EXPECT_FALSE(decode(0x60228000).valid());                    // fetch with Ra != R31
  EXPECT_FALSE(decode(0x5c010483).valid());                    // mt_fpcr needs Fa=Fb=Fc
  EXPECT_EQ(decode(0x5c210481).operation, Operation::kMtFpcr);
}

TEST(IsaOperands, LoadAndStore) {
  const Operands ldq = operands(decode(0xa43e0008));  // ldq t0,8(sp)
  EXPECT_EQ(ldq.read.integer, bit(kSp));
  EXPECT_EQ(ldq.written.integer, bit(kT0));
  EXPECT_EQ(ldq.memory.bytes, 8);
  EXPECT_EQ(ldq.memory.direction, MemoryDirection::kLoad);

  const Operands stq = operands(decode(0xb43e0008));  // stq t0,8(sp)
  EXPECT_EQ(stq.read.integer, bit(kT0) | bit(kSp));
  EXPECT_TRUE(stq.written.empty());
  EXPECT_EQ(stq.memory.direction, MemoryDirection::kStore);

  const Operands stq_c = operands(decode(0xbc3e0000));  // stq_c t0,0(sp)
  EXPECT_EQ(stq_c.written.integer, bit(kT0));
  EXPECT_TRUE(stq_c.memory.locked);

  const Operands ldq_u = operands(decode(0x2c3e0000));
  EXPECT_FALSE(ldq_u.memory.aligned);

  const Operands lda = operands(decode(0x203e0010));  // lda t0,16(sp): no memory access
  EXPECT_EQ(lda.memory.bytes, 0);
  EXPECT_EQ(lda.read.integer, bit(kSp));
}

TEST(IsaOperands, MemorySizes) {
  EXPECT_EQ(operands(decode(0x283e0000)).memory.bytes, 1);  // ldbu
  EXPECT_EQ(operands(decode(0x303e0000)).memory.bytes, 2);  // ldwu
  EXPECT_EQ(operands(decode(0x383e0000)).memory.bytes, 1);  // stb
  EXPECT_EQ(operands(decode(0x343e0000)).memory.bytes, 2);  // stw
  EXPECT_EQ(operands(decode(0xa03e0000)).memory.bytes, 4);  // ldl
  const Operands lds = operands(decode(0x883e0000));        // lds $f1,0(sp)
  EXPECT_EQ(lds.memory.bytes, 4);
  EXPECT_EQ(lds.written.fp, bit(1));
  EXPECT_EQ(lds.written.integer, 0u);
  const Operands stt = operands(decode(0x9c3e0000));  // stt $f1,0(sp)
  EXPECT_EQ(stt.read.fp, bit(1));
  EXPECT_EQ(stt.read.integer, bit(kSp));
}

TEST(IsaOperands, ZeroRegisterIsNeverADependency) {
  const Operands nop = operands(decode(0x47ff041f));  // bis zero,zero,zero
  EXPECT_TRUE(nop.read.empty());
  EXPECT_TRUE(nop.written.empty());
  const Operands fnop = operands(decode(0x5fff041f));  // cpys $f31,$f31,$f31
  EXPECT_TRUE(fnop.read.empty());
  EXPECT_TRUE(fnop.written.empty());
}

TEST(IsaOperands, OperateConditionalMoveAndFp) {
  EXPECT_EQ(operands(decode(0x4020b403)).read.integer, bit(kT0));  // literal: no Rb
  const Operands cmov = operands(decode(0x44220483));              // cmoveq t0,t1,t2
  EXPECT_EQ(cmov.read.integer, bit(kT0) | bit(kT1) | bit(kT2));
  EXPECT_EQ(cmov.written.integer, bit(kT2));
  const Operands fcmov = operands(decode(0x5c220543));  // fcmoveq $f1,$f2,$f3
  EXPECT_EQ(fcmov.read.fp, bit(1) | bit(2) | bit(3));
  const Operands itoft = operands(decode(0x503f0483));  // itoft t0,$f3
  EXPECT_EQ(itoft.read.integer, bit(kT0));
  EXPECT_EQ(itoft.written.fp, bit(3));
  const Operands ftoit = operands(decode(0x703f0e03));  // ftoit $f1,t2
  EXPECT_EQ(ftoit.read.fp, bit(1));
  EXPECT_EQ(ftoit.written.integer, bit(kT2));
  EXPECT_EQ(operands(decode(0x5c0004a0)).written.fp, bit(0));  // mf_fpcr $f0
}

TEST(IsaOperands, JumpsAndMisc) {
  const Instruction jsr = decode(0x6b5b4000);  // jsr ra,(t12)
  EXPECT_EQ(operands(jsr).read.integer, bit(kT12));
  EXPECT_EQ(operands(jsr).written.integer, bit(kRa));
  EXPECT_EQ(control_flow(jsr), ControlFlow::kCall);
  EXPECT_EQ(control_flow(decode(0x6bfa8001)), ControlFlow::kReturn);
  EXPECT_EQ(operands(decode(0x6000c000)).written.integer, bit(0));  // rpcc v0
  EXPECT_EQ(operands(decode(0x63e28000)).read.integer, bit(kT1));   // fetch (t1)
  EXPECT_TRUE(operands(decode(0x63ff0000)).read.empty());           // trapb
  EXPECT_EQ(control_flow(decode(0x04000000)), ControlFlow::kStop);
}

TEST(IsaBranch, TargetsAreRelativeToTheNextInstruction) {
  const Instruction br = decode(0xc3e00005);  // br +5 words
  EXPECT_TRUE(has_direct_target(br));
  EXPECT_EQ(branch_target(br, 0x1000), 0x1000u + 4 + 20);
  const Instruction bne = decode(0xf43ffffe);  // bne t0, -2 words
  EXPECT_EQ(branch_target(bne, 0x1000), 0x1000u + 4 - 8);
  EXPECT_EQ(control_flow(bne), ControlFlow::kConditionalBranch);
  EXPECT_EQ(operands(bne).read.integer, bit(kT0));
  const Instruction bsr = decode(0xd3400010);  // bsr ra,+16 words
  EXPECT_EQ(operands(bsr).written.integer, bit(kRa));
  EXPECT_EQ(control_flow(bsr), ControlFlow::kCall);
  EXPECT_EQ(text(0xd3400010, 0xfffffc0000310000), "bsr\tra,fffffc0000310044");
  EXPECT_EQ(text(0xc7dffff0, 0x40), "fbeq\t$f30,4");
}

TEST(IsaPrint, PseudoInstructionsLikeObjdump) {
  EXPECT_EQ(text(0x47ff041f), "nop\t");
  EXPECT_EQ(text(0x2ffe0000), "unop\t");
  EXPECT_EQ(text(0x47e10402), "mov\tt0,t1");
  EXPECT_EQ(text(0x47e21402), "mov\t0x10,t1");
  EXPECT_EQ(text(0x47ff0402), "clr\tt1");
  EXPECT_EQ(text(0x43e10522), "negq\tt0,t1");
  EXPECT_EQ(text(0x47e10502), "not\tt0,t1");
  EXPECT_EQ(text(0x5fde0401), "fmov\t$f30,$f1");
  EXPECT_EQ(text(0x5ffe0401), "fabs\t$f30,$f1");
  EXPECT_EQ(text(0x5fde0421), "fneg\t$f30,$f1");
  EXPECT_EQ(text(0x6bfa8001), "ret");
  EXPECT_EQ(text(0x6bfa0000), "jmp\t(ra)");
  EXPECT_EQ(text(0x201f0003), "lda\tv0,3");
  EXPECT_EQ(text(0x44220402), "or\tt0,t1,t1");  // bis prints as its alias "or"
  EXPECT_EQ(text(0x00000080), "bpt");
  EXPECT_EQ(text(0x00000099), "call_pal\t0x99");
  EXPECT_EQ(text(0x63ff0000), "trapb");
  EXPECT_EQ(text(0x04000000), ".long 0x4000000");
}

TEST(IsaPrint, PalcodeHardwareInstructions) {
  const DecodeMode pal = DecodeMode::kPalcode;
  EXPECT_EQ(text(0x651f00f9, 0, pal), "hw_mfpr\tt7,0xf9");
  EXPECT_EQ(text(0x77fe000c, 0, pal), "hw_mtpr\tsp,0xc");
  EXPECT_EQ(text(0x7bea8000, 0, pal), "hw_ret\t(s1)");
  EXPECT_EQ(text(0x6c221810, 0, pal), "hw_ldq/p\tt0,-2032(t1)");
  EXPECT_EQ(text(0x651f00f9), "pal19\t0x11f00f9");
  const Instruction ldq_p = decode(0x6c221810, pal);
  EXPECT_TRUE(operands(ldq_p).memory.physical);
  EXPECT_EQ(operands(ldq_p).memory.bytes, 8);
  EXPECT_EQ(operands(decode(0x77fe000c, pal)).read.integer, bit(kSp));
  EXPECT_EQ(control_flow(decode(0x7bea8000, pal)), ControlFlow::kReturn);
}

TEST(IsaPrint, AddressPrinterAndTruncation) {
  const AddressPrinter printer{[](void*, uint64_t address, TextBuffer& out) {
                                 out.put("<");
                                 out.put_hex(address, 4);
                                 out.put(">");
                               },
                               nullptr};
  char buffer[64];
  print_instruction(decode(0xc3e00005), 0x100, buffer, sizeof buffer, &printer);
  EXPECT_STREQ(buffer, "br\t<0118>");
  char tiny[6] = {'x', 'x', 'x', 'x', 'x', 'x'};
  TextBuffer out(tiny, 5);
  print_instruction(decode(0x40220403), 0, out);
  EXPECT_STREQ(tiny, "addq");
  EXPECT_TRUE(out.truncated());
  EXPECT_EQ(tiny[5], 'x');  // nothing written past the capacity
}

TEST(IsaPrint, DecimalWithoutDivision) {
  char buffer[32];
  TextBuffer out(buffer, sizeof buffer);
  out.put_decimal(-32768);
  out.put(' ');
  out.put_decimal(0);
  out.put(' ');
  out.put_decimal(INT64_MIN);
  EXPECT_STREQ(buffer, "-32768 0 -9223372036854775808");
}

TEST(IsaPalNames, OsfNames) {
  EXPECT_STREQ(osf_pal_name(0x39), "wrperfmon");
  EXPECT_STREQ(osf_pal_name(0x35), "swpipl");
  EXPECT_EQ(osf_pal_name(0x3b), nullptr);
  EXPECT_EQ(objdump_pal_name(0x39), nullptr);  // objdump prints call_pal 0x39
}

TEST(IsaEv5, ClassesAndLatencies) {
  auto timing = [](uint32_t word) { return ev5_timing(ev5_class(decode(word))); };
  EXPECT_EQ(timing(0x4c220003).latency, 8);                // mull
  EXPECT_EQ(timing(0x4c220403).latency, 12);               // mulq
  EXPECT_EQ(timing(0x4c220603).latency, 14);               // umulh
  EXPECT_EQ(timing(0x58220063).latency, 15);               // divs/c
  EXPECT_EQ(timing(0x58221463).latency, 22);               // divt
  EXPECT_EQ(timing(0x58221403).latency, 4);                // addt
  EXPECT_EQ(timing(0xa43e0008).latency, 2);                // ldq
  EXPECT_EQ(timing(0x40220403).pipes, kPipeE0 | kPipeE1);  // addq
  EXPECT_EQ(timing(0x48220723).pipes, kPipeE0);            // sll: shifts only on E0
  EXPECT_EQ(timing(0xf43ffffe).pipes, kPipeE1);            // bne: branches only on E1
  EXPECT_EQ(timing(0x58220043).pipes, kPipeFM);            // mult/c... on FM
  EXPECT_TRUE(timing(0xb43e0008).store_pipe);
  EXPECT_EQ(ev5_latency(Ev5Class::kIadd, Ev5Class::kImulq), 3);
  EXPECT_EQ(ev5_latency(Ev5Class::kIcmp, Ev5Class::kIbr), 0);
  EXPECT_EQ(ev5_latency(Ev5Class::kImulq, Ev5Class::kIadd), 12);
}

// What value sampling records as "the instruction's operands".
TEST(IsaOperands, FieldsReadAsOperands) {
  EXPECT_EQ(fields_read(Operation::kLdq), kReadsB);  // Ra is the destination
  EXPECT_EQ(fields_read(Operation::kLdt), kReadsB);
  EXPECT_EQ(fields_read(Operation::kStq), kReadsA | kReadsB);
  EXPECT_EQ(fields_read(Operation::kStt), kReadsA | kReadsB);
  EXPECT_EQ(fields_read(Operation::kLda), kReadsB);
  EXPECT_EQ(fields_read(Operation::kBeq), kReadsA);  // Rb bits are displacement
  EXPECT_EQ(fields_read(Operation::kFbne), kReadsA);
  EXPECT_EQ(fields_read(Operation::kBr), 0);
  EXPECT_EQ(fields_read(Operation::kBsr), 0);
  EXPECT_EQ(fields_read(Operation::kAddq), kReadsA | kReadsB);
  EXPECT_EQ(fields_read(Operation::kAddt), kReadsA | kReadsB);
  EXPECT_EQ(fields_read(Operation::kSextb), kReadsB);  // Ra must be R31
  EXPECT_EQ(fields_read(Operation::kCvttq), kReadsB);
  EXPECT_EQ(fields_read(Operation::kItoft), kReadsA);
  EXPECT_EQ(fields_read(Operation::kFtoit), kReadsA);
  EXPECT_EQ(fields_read(Operation::kMtFpcr), kReadsA);
  EXPECT_EQ(fields_read(Operation::kMfFpcr), 0);
  EXPECT_EQ(fields_read(Operation::kJmp), kReadsB);
  EXPECT_EQ(fields_read(Operation::kRpcc), 0);
  EXPECT_EQ(fields_read(Operation::kCallPal), 0);
  EXPECT_EQ(fields_read(Operation::kInvalid), 0);
}

TEST(IsaDisassembler, SymbolSuffixOnTargets) {
  // Without an ELF: the plain objdump address.
  EXPECT_EQ(disassemble_word(0xd3400010, 0x1000), "bsr\tra,1044");
}

}  // namespace
}  // namespace dcpi::isa
