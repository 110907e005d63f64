// dcpi values shows only registers an instruction really reads or writes
// (issue 17): no "result" row for trapb, no literal offered as operand b.
#include <gtest/gtest.h>

#include "analysis/values/value_hotlists.h"

namespace dcpi {
namespace {

constexpr uint32_t operate(uint32_t op, uint32_t ra, uint32_t rb, uint32_t function, uint32_t rc) {
  return op << 26 | ra << 21 | rb << 16 | function << 5 | rc;
}
constexpr uint32_t operate_literal(uint32_t op, uint32_t ra, uint32_t literal, uint32_t function,
                                   uint32_t rc) {
  return op << 26 | ra << 21 | literal << 13 | 1u << 12 | function << 5 | rc;
}
constexpr uint32_t memory(uint32_t op, uint32_t ra, uint32_t rb, uint32_t displacement) {
  return op << 26 | ra << 21 | rb << 16 | (displacement & 0xffff);
}

bool shows(const char* kind, uint32_t word) {
  return kind_is_register_value(kind, word, isa::DecodeMode::kUser);
}

TEST(ValueKinds, TrapbWritesNoRegister) {
  const uint32_t trapb = 0x18000000;
  for (const char* kind : {"result", "a", "b", "fp_result", "fp_a", "fp_b"})
    EXPECT_FALSE(shows(kind, trapb)) << kind;
}

TEST(ValueKinds, LiteralIsNoOperand) {
  const uint32_t zapnot = operate_literal(0x12, 1, 7, 0x31, 2);  // zapnot t0,0x7,t1
  EXPECT_TRUE(shows("result", zapnot));
  EXPECT_TRUE(shows("a", zapnot));
  EXPECT_FALSE(shows("b", zapnot));
  EXPECT_FALSE(shows("fp_result", zapnot));
}

TEST(ValueKinds, RegistersOfOperatesLoadsAndStores) {
  const uint32_t addq = operate(0x10, 1, 2, 0x20, 3);  // addq t0,t1,t2
  EXPECT_TRUE(shows("result", addq) && shows("a", addq) && shows("b", addq));
  const uint32_t mov = operate(0x11, 31, 2, 0x20, 3);  // bis zero,t1,t2: a is R31
  EXPECT_FALSE(shows("a", mov));
  EXPECT_TRUE(shows("b", mov));
  const uint32_t ldq = memory(0x29, 1, 30, 8);  // ldq t0,8(sp): reads only the base
  EXPECT_TRUE(shows("result", ldq) && shows("b", ldq));
  EXPECT_FALSE(shows("a", ldq));
  const uint32_t stt = memory(0x27, 2, 30, 0);  // stt $f2,0(sp)
  EXPECT_TRUE(shows("fp_a", stt) && shows("b", stt));
  EXPECT_FALSE(shows("result", stt) || shows("a", stt) || shows("fp_result", stt));
  EXPECT_TRUE(shows("my_kind", 0x18000000)) << "a module's own kinds are kept";
}

}  // namespace
}  // namespace dcpi
