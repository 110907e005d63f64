#include "hostdump/values/value_payload.h"

#include <cstring>

namespace dcpi::values {
namespace {

constexpr uint8_t kKnownTupleFlags =
    kTupleMemory | kTupleLoad | kTupleFpA | kTupleFpB | kTupleFpResult;

class WordReader {
 public:
  explicit WordReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  bool next(uint64_t& word) {
    if (bytes_.size() - offset_ < 8) return false;
    std::memcpy(&word, bytes_.data() + offset_, 8);
    offset_ += 8;
    return true;
  }
  bool done() const { return offset_ == bytes_.size(); }

 private:
  std::span<const uint8_t> bytes_;
  size_t offset_ = 0;
};

bool decode_tuple(WordReader& in, uint32_t length, int previous_index, ValueTuple& t) {
  uint64_t head = 0;
  if (!in.next(t.pc) || !in.next(head)) return false;
  t.word = static_cast<uint32_t>(head);
  t.flags = static_cast<uint8_t>(head >> 32);
  t.fields = static_cast<uint8_t>(head >> 40);
  t.index = static_cast<uint8_t>(head >> 48);
  if ((head >> 56) != 0 || (t.flags & ~kKnownTupleFlags) || !(t.fields & kFieldTuple) ||
      (t.fields & ~kFieldAll) || t.index >= length || int{t.index} <= previous_index)
    return false;
  if ((t.fields & kFieldA) && !in.next(t.a)) return false;
  if ((t.fields & kFieldB) && !in.next(t.b)) return false;
  if ((t.fields & kFieldResult) && !in.next(t.result)) return false;
  if ((t.fields & kFieldAddress) && !in.next(t.va)) return false;
  if ((t.fields & kFieldLatency) && !in.next(t.latency)) return false;
  if ((t.fields & kFieldRegister) && !in.next(t.named)) return false;
  return true;
}

bool decode_run(WordReader& in, DecodedValues& out) {
  uint64_t header = 0;
  if (!in.next(header)) return false;
  const uint16_t pid = static_cast<uint16_t>(header);
  const uint32_t tuples = (header >> 16) & 0xff, flags = (header >> 24) & 0xff,
                 length = (header >> 32) & 0xff, stop = (header >> 40) & 0xff;
  if (tuples == 0 || tuples > length || length > kMaxValueLength || (flags & ~kRunContext) ||
      stop >= 8 || (header >> 48) != 0)
    return false;
  uint64_t ra = 0, stack_top = 0;
  if ((flags & kRunContext) && (!in.next(ra) || !in.next(stack_top))) return false;
  int previous = -1;
  for (uint32_t i = 0; i < tuples; ++i) {
    ValueTuple t{};
    if (!decode_tuple(in, length, previous, t)) return false;
    previous = t.index;
    t.pid = pid;
    if (i == 0) t.flags |= kTupleFirst;
    t.has_context = (flags & kRunContext) != 0;
    t.ra = ra;
    t.stack_top = stack_top;
    out.tuples.push_back(t);
  }
  out.run_ends.push_back(static_cast<uint32_t>(out.tuples.size()));
  return true;
}

}  // namespace

bool decode_values_payload(std::span<const uint8_t> payload, DecodedValues& out) {
  out = DecodedValues{};
  ValuesPayload header;
  if (payload.size() < sizeof header) return false;
  std::memcpy(&header, payload.data(), sizeof header);
  if (header.format != kValuesFormat ||
      payload.size() - sizeof header != uint64_t{header.words} * sizeof(uint64_t))
    return false;
  out.dropped = header.dropped;
  WordReader in(payload.subspan(sizeof header));
  while (!in.done())
    if (!decode_run(in, out)) return false;
  return true;
}

}  // namespace dcpi::values
