#include "hostdump/chains/chain_payload.h"

#include <cstring>

namespace dcpi {

namespace {

// The quadwords [address, address + 8 n) of `previous`, if it has them all.
bool take_reused(const ChainSample& sample, uint64_t address, uint64_t n,
                 const std::vector<uint64_t>& slice, uint64_t slice_sp,
                 std::vector<uint64_t>& into) {
  (void)sample;
  if (address < slice_sp || (address - slice_sp) % 8 != 0) return false;
  const uint64_t first = (address - slice_sp) / 8;
  if (first > slice.size() || slice.size() - first < n) return false;
  into.insert(into.end(), slice.begin() + static_cast<ptrdiff_t>(first),
              slice.begin() + static_cast<ptrdiff_t>(first + n));
  return true;
}

}  // namespace

bool ChainDecoder::decode(std::span<const uint8_t> payload, uint64_t epoch, uint16_t cpu,
                          std::vector<ChainSample>& out, uint64_t* dropped) {
  ChainsPayload header;
  if (payload.size() < sizeof header) return false;
  std::memcpy(&header, payload.data(), sizeof header);
  if (header.format != kChainsFormat) return false;
  if (uint64_t{header.words} * 8 != payload.size() - sizeof header) return false;
  std::vector<uint64_t> words(header.words);
  std::memcpy(words.data(), payload.data() + sizeof header, words.size() * 8);
  constexpr uint64_t kMask = (1u << kChainCountBits) - 1;
  // Parsed first, rebuilt after: a malformed payload changes no state.
  struct Parsed {
    ChainSample sample;
    uint64_t low, reused, high;
    size_t at;
  };
  std::vector<Parsed> parsed;
  for (size_t at = 0; at < words.size();) {
    if (words.size() - at < kChainHeadWords) return false;
    const uint64_t first = words[at];
    Parsed p;
    p.sample.epoch = epoch;
    p.sample.cpu = cpu;
    p.sample.pid = static_cast<uint16_t>(first);
    p.sample.flags = static_cast<uint8_t>(first >> 16);
    p.sample.sequence = static_cast<uint8_t>(first >> 24);
    p.low = (first >> 32) & kMask, p.reused = (first >> 42) & kMask, p.high = (first >> 52) & kMask;
    if (first >> 62 || p.sample.flags & ~(kChainUser | kChainStackEnd)) return false;
    if (p.low + p.reused + p.high > kMaxChainStackBytes / 8) return false;
    if (!(p.sample.flags & kChainUser) && p.low + p.reused + p.high != 0) return false;
    const uint64_t sent = p.low + p.high;
    if (words.size() - at - kChainHeadWords < sent) return false;
    p.sample.pc = words[at + 1], p.sample.sp = words[at + 2], p.sample.ra = words[at + 3];
    p.sample.fp = words[at + 4], p.sample.t9 = words[at + 5];
    p.at = at + kChainHeadWords;
    parsed.push_back(std::move(p));
    at += kChainHeadWords + sent;
  }
  for (Parsed& p : parsed) {
    ChainSample& s = p.sample;
    Previous& previous = previous_[cpu];
    const bool have = previous.valid && previous.next_sequence == s.sequence;
    const auto low = words.begin() + static_cast<ptrdiff_t>(p.at);
    s.stack.assign(low, low + static_cast<ptrdiff_t>(p.low));
    if (p.reused != 0 && !(have && take_reused(s, s.sp + p.low * 8, p.reused, previous.slice,
                                               previous.sp, s.stack))) {
      s.reference_lost = true;  // the slice ends below the quadwords it did not repeat
      ++references_lost_;
    } else {
      s.stack.insert(s.stack.end(), low + static_cast<ptrdiff_t>(p.low),
                     low + static_cast<ptrdiff_t>(p.low + p.high));
    }
    previous.next_sequence = static_cast<uint8_t>(s.sequence + 1);
    if (s.user()) {
      previous.valid = !s.reference_lost;
      previous.sp = s.sp;
      previous.slice = s.stack;
    }
    out.push_back(std::move(s));
  }
  *dropped = header.dropped;
  return true;
}

}  // namespace dcpi
