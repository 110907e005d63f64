// Guest build of isa/: instantiates the decoder, operand analysis and printer
// freestanding (the value-sampling interpreter will use them in the kernel),
// and checks a few encodings at compile time with the Alpha compiler itself.
#include <cstddef>
#include <cstdint>

#include "isa/ev5_slotting.h"
#include "isa/isa.h"
#include "isa/stall_causes.h"

namespace dcpi::isa {
namespace {

constexpr bool prints_as(uint32_t word, uint64_t pc, const char* expected,
                         DecodeMode mode = DecodeMode::kUser) {
  char text[64] = {};
  disassemble(word, pc, text, sizeof text, mode);
  for (size_t i = 0;; ++i) {
    if (text[i] != expected[i]) return false;
    if (text[i] == '\0') return true;
  }
}

static_assert(prints_as(0x40220401, 0, "addq\tt0,t1,t0"));
static_assert(prints_as(0x47ff041f, 0, "nop\t"));
static_assert(prints_as(0x6bfa8001, 0, "ret"));
static_assert(prints_as(0xa43ffff0, 0, "ldq\tt0,-16(zero)"));
static_assert(prints_as(0xc3fffff0, 0x1000, "br\tfc4"));
static_assert(prints_as(0x643f00f9, 0, "hw_mfpr\tt0,0xf9", DecodeMode::kPalcode));
static_assert(prints_as(0x643f00f9, 0, "pal19\t0x3f00f9"));
static_assert(operands(decode(0xb43e0008)).read.integer == ((1u << 1) | (1u << 30)));

// The EV5 block scheduler, freestanding: a load's reader waits a cycle more.
constexpr uint32_t ev5_reader_head_cycles() {
  Ev5BlockScheduler scheduler;
  scheduler.issue(Ev5Instruction{.address = 0x1000, .ev5_class = Ev5Class::kIld, .destination = 1});
  Ev5Instruction add{.address = 0x1004, .ev5_class = Ev5Class::kIadd, .destination = 2};
  add.sources[0] = 1;
  return scheduler.issue(add).head_cycles;
}
static_assert(ev5_reader_head_cycles() == 2);

// The stall causes, freestanding: the truth's word and Figure 2's bubbles.
constexpr bool same(const char* a, const char* b) {
  for (size_t i = 0;; ++i) {
    if (a[i] != b[i]) return false;
    if (a[i] == '\0') return true;
  }
}
static_assert(same(truth_name(StallCause::kDCacheMiss), "dcache"));
static_assert(same(truth_name(booked_as(StallCause::kMultiplyWritebackE0)), "slot"));
static_assert(static_letter(StallCause::kDependency, 2) == 'c');
static_assert(dynamic_letter(StallCause::kItbMiss) == 'I' && !is_dynamic(StallCause::kOther));

}  // namespace
}  // namespace dcpi::isa

// Out-of-line entry points so the code is really generated (and linked
// against nothing) in the guest build.
extern "C" size_t dcpi_isa_disassemble(uint32_t word, uint64_t pc, char* buffer, size_t capacity,
                                       bool palcode) {
  using namespace dcpi::isa;
  return disassemble(word, pc, buffer, capacity,
                     palcode ? DecodeMode::kPalcode : DecodeMode::kUser);
}

extern "C" uint32_t dcpi_isa_integer_reads(uint32_t word) {
  return dcpi::isa::operands(dcpi::isa::decode(word)).read.integer;
}

extern "C" unsigned dcpi_isa_ev5_latency(uint32_t word) {
  return dcpi::isa::ev5_timing(dcpi::isa::ev5_class(dcpi::isa::decode(word))).latency;
}

// The value-sampling interpreter (isa/interp) compiled freestanding: one
// instantiation with a trivial memory policy, so the no-undefined-symbols
// check covers its softfloat (no __multi3, no __udivti3, no FPU use).
#include "isa/interp/interpreter.h"
namespace {
uint64_t g_check_memory[64];
struct CheckMemory {
  bool load(uint64_t va, unsigned, uint64_t& value) {
    value = g_check_memory[(va >> 3) & 63];
    return (va & 1) == 0;
  }
  bool store(uint64_t va, unsigned, uint64_t value) {
    g_check_memory[(va >> 3) & 63] = value;
    return true;
  }
  uint64_t cycles() { return g_check_memory[0]; }
};
}  // namespace
extern "C" int dcpi_isa_interp_step(dcpi::isa::interp::Context* c, dcpi::isa::interp::Step* s) {
  CheckMemory m;
  return static_cast<int>(dcpi::isa::interp::step(*c, m, *s));
}
