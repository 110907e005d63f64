// kValues payloads (format 2, docs/transfer-format.md) and vcapture= specs
// (firmware/value_tuples.h, hostdump/values/value_capture.h). The encoder here
// is written from the documented layout, independently of the guest writer.
#include "hostdump/values/value_payload.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "hostdump/values/value_capture.h"
#include "tests/unit/test_support.h"

namespace dcpi::values {
namespace {

struct TupleSpec {
  uint64_t pc;
  uint8_t flags, fields, index;
  uint64_t a = 0, b = 0, result = 0, va = 0, latency = 0, named = 0;
};

class PayloadEncoder {
 public:
  void run(uint16_t pid, uint8_t length, uint8_t stop, const std::vector<TupleSpec>& tuples,
           const uint64_t* context = nullptr) {
    put(pid | uint64_t(tuples.size()) << 16 | uint64_t(context ? kRunContext : 0) << 24 |
        uint64_t(length) << 32 | uint64_t(stop) << 40);
    if (context) put(context[0]), put(context[1]);
    for (const TupleSpec& t : tuples) {
      put(t.pc);
      put(0x47ff041fu | uint64_t(t.flags) << 32 | uint64_t(t.fields) << 40 |
          uint64_t(t.index) << 48);
      if (t.fields & kFieldA) put(t.a);
      if (t.fields & kFieldB) put(t.b);
      if (t.fields & kFieldResult) put(t.result);
      if (t.fields & kFieldAddress) put(t.va);
      if (t.fields & kFieldLatency) put(t.latency);
      if (t.fields & kFieldRegister) put(t.named);
    }
  }
  std::vector<uint8_t> payload(uint64_t dropped = 0) const {
    const ValuesPayload header{uint32_t(words_.size()), kValuesFormat, dropped};
    std::vector<uint8_t> bytes(sizeof header + words_.size() * 8);
    std::memcpy(bytes.data(), &header, sizeof header);
    std::memcpy(bytes.data() + sizeof header, words_.data(), words_.size() * 8);
    return bytes;
  }

 private:
  void put(uint64_t word) { words_.push_back(word); }
  std::vector<uint64_t> words_;
};

PayloadEncoder two_runs() {
  PayloadEncoder e;
  const uint64_t context[2] = {0x120000abc, 0x11fffe000};
  e.run(7, 4, 0,
        {{.pc = 0x1000,
          .flags = 0,
          .fields = kFieldTuple | kFieldOperands | kFieldResult,
          .index = 0,
          .a = 1,
          .b = 2,
          .result = 3},
         {.pc = 0x1008,
          .flags = kTupleMemory | kTupleLoad,
          .fields = kFieldTuple | kFieldB | kFieldAddress | kFieldLatency | kFieldRegister,
          .index = 2,
          .b = 0x1ff0,
          .va = 0x2000,
          .latency = 5,
          .named = 9}},
        context);
  e.run(8, 1, 2,
        {{.pc = 0x3000, .flags = kTupleFpA | kTupleFpResult, .fields = kFieldTuple, .index = 0}});
  return e;
}

TEST(ValuePayload, DecodesRunsFieldsAndContext) {
  DecodedValues out;
  ASSERT_TRUE(decode_values_payload(two_runs().payload(5), out));
  ASSERT_EQ(out.tuples.size(), 3u);
  EXPECT_EQ(out.run_ends, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(out.dropped, 5u);
  const ValueTuple& first = out.tuples[0];
  EXPECT_EQ(first.pid, 7);
  EXPECT_TRUE(first.flags & kTupleFirst);
  EXPECT_EQ(first.word, 0x47ff041fu);
  EXPECT_EQ(first.a + first.b + first.result, 6u);
  EXPECT_TRUE(first.has_context);
  EXPECT_EQ(first.ra, 0x120000abcu);
  const ValueTuple& load = out.tuples[1];
  EXPECT_FALSE(load.flags & kTupleFirst);
  EXPECT_EQ(load.index, 2);
  EXPECT_EQ(load.va, 0x2000u);
  EXPECT_EQ(load.latency, 5u);
  EXPECT_EQ(load.named, 9u);
  EXPECT_EQ(load.a, 0u);  // a load's Ra is its destination: not captured
  EXPECT_EQ(load.b, 0x1ff0u);
  EXPECT_EQ(load.stack_top, 0x11fffe000u);
  EXPECT_FALSE(out.tuples[2].has_context);
  EXPECT_EQ(out.tuples[2].pid, 8);
}

TEST(ValuePayload, EmptyPayloadCarriesDrops) {
  DecodedValues out;
  ASSERT_TRUE(decode_values_payload(PayloadEncoder().payload(12), out));
  EXPECT_TRUE(out.tuples.empty());
  EXPECT_EQ(out.dropped, 12u);
}

TEST(ValuePayload, MalformedPayloadsAreRejected) {
  auto rejects = [](std::vector<uint8_t> bytes) {
    DecodedValues out;
    return !decode_values_payload(bytes, out);
  };
  const std::vector<uint8_t> good = two_runs().payload();
  auto patched = [&](size_t offset, uint64_t value) {
    std::vector<uint8_t> bytes = good;
    std::memcpy(bytes.data() + offset, &value, 8);
    return bytes;
  };
  EXPECT_TRUE(rejects(std::vector<uint8_t>(good.begin(), good.end() - 8)));  // words disagree
  EXPECT_TRUE(rejects(std::vector<uint8_t>(good.begin(), good.begin() + 8)));
  std::vector<uint8_t> format = good;
  format[4] = 1;  // format 1 (72-byte tuples) is gone
  EXPECT_TRUE(rejects(format));
  EXPECT_TRUE(rejects(patched(16, 7 | uint64_t(9) << 16 | uint64_t(4) << 32)));   // 9 > length
  EXPECT_TRUE(rejects(patched(16, 7 | uint64_t(2) << 16 | uint64_t(65) << 32)));  // length > 64
  EXPECT_TRUE(rejects(patched(16, 7 | uint64_t(2) << 16 | uint64_t(2) << 24 | uint64_t(4) << 32)));
  // Second tuple head (after run header, context, first tuple of 5 words).
  const size_t second = 16 + 8 * (1 + 2 + 5) + 8;
  EXPECT_TRUE(rejects(patched(second, uint64_t(kFieldTuple) << 40)));  // index 0 after 0
  EXPECT_TRUE(rejects(patched(second, uint64_t(kFieldOperands) << 40 | uint64_t(2) << 48)));
  EXPECT_TRUE(rejects(patched(second, uint64_t(0x80 | kFieldTuple) << 40 | uint64_t(2) << 48)));
  EXPECT_TRUE(rejects(patched(second, uint64_t(0x80) << 32 | uint64_t(1) << 40 | 2ull << 48)));
}

TEST(ValuePayloadFuzz, DamagedPayloadsFailCleanly) {
  const std::vector<uint8_t> good = two_runs().payload();
  std::mt19937 random(11);
  int rejected = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<uint8_t> bytes = good;
    testing::damage(bytes, random, round);
    DecodedValues out;
    if (!decode_values_payload(bytes, out)) {
      ++rejected;
      continue;
    }
    for (const ValueTuple& t : out.tuples) EXPECT_TRUE(t.fields & kFieldTuple);
  }
  EXPECT_GT(rejected, 5000);
}

TEST(ValueCaptureSpec, ParsesTheDocumentedForms) {
  ValueCapture c{};
  ASSERT_TRUE(parse_capture_spec("tor", 3, c));
  EXPECT_EQ(c.fields[0x10], kFieldTuple | kFieldOperands | kFieldResult);
  EXPECT_EQ(c.context, 0);
  ASSERT_TRUE(parse_capture_spec("ctx", 3, c));  // default fields plus context
  EXPECT_EQ(c.fields[0x29], default_value_capture().fields[0x29]);
  EXPECT_EQ(c.context, 1);
  const std::string spec = "a,20=tl,11=-,reg=16";
  ASSERT_TRUE(parse_capture_spec(spec.data(), spec.size(), c));
  EXPECT_EQ(c.fields[0x00], kFieldTuple | kFieldAddress);  // letters imply t
  EXPECT_EQ(c.fields[0x20], kFieldTuple | kFieldLatency);
  EXPECT_EQ(c.fields[0x11], 0);
  EXPECT_EQ(c.named_register, 16);
  for (const char* bad : {"", "x", "tor,zz", "40=t", "tor,reg=32", "tor,2=t", "tor,,ctx", "ctx,tor",
                          "reg=", "tor,reg=123"})
    EXPECT_FALSE(parse_capture_spec(bad, std::strlen(bad), c)) << bad;
}

TEST(ValueCaptureSpec, FormatRoundTripsThroughTheGuestParser) {
  std::mt19937 random(5);
  for (int round = 0; round < 2000; ++round) {
    ValueCapture c{};
    // Operands are configured as one field (a and b together).
    auto fields = [&random] {
      uint8_t f = uint8_t(random() % 128) | kFieldTuple;
      return (f & kFieldOperands) ? uint8_t(f | kFieldOperands) : f;
    };
    const uint8_t common = fields();
    for (uint8_t& f : c.fields) {
      f = common;
      if (random() % 16 == 0) f = random() % 2 ? 0 : fields();
    }
    c.context = random() % 2;
    c.named_register = uint8_t(random() % 32);
    const std::string spec = format_capture_spec(c);
    ValueCapture back{};
    ASSERT_TRUE(parse_capture_spec(spec.data(), spec.size(), back)) << spec;
    EXPECT_EQ(std::memcmp(&back, &c, sizeof c), 0) << spec;
  }
}

TEST(ValueCaptureSpec, CombinesModuleRequests) {
  CaptureRequest operands = CaptureRequest::everywhere(kFieldTuple | kFieldOperands | kFieldResult);
  CaptureRequest loads;
  loads.fields[0x29] = kFieldLatency;  // the tuple head is implied
  loads.named_register = 26;
  const std::vector<CaptureRequest> requests{operands, loads};
  const ValueCapture c = combine_captures(requests);
  EXPECT_EQ(c.fields[0x29], kFieldTuple | kFieldOperands | kFieldResult | kFieldLatency);
  EXPECT_EQ(c.fields[0x10], kFieldTuple | kFieldOperands | kFieldResult);
  EXPECT_EQ(c.named_register, 26);
  EXPECT_EQ(format_capture_spec(c), "tor,29=torl,reg=26");
  CaptureRequest other;
  other.named_register = 16;
  const std::vector<CaptureRequest> clash{loads, other};
  EXPECT_THROW(combine_captures(clash), std::invalid_argument);
  EXPECT_THROW(request_from_spec("tor,bogus"), std::invalid_argument);
}

}  // namespace
}  // namespace dcpi::values
