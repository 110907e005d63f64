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

namespace {

// A slice as sent: `low` and `high` quadwords at `at` in the payload, the
// `reused` ones between them left to the previous user slice.
struct SentSlice {
  uint64_t sp = 0, low = 0, reused = 0, high = 0;
  size_t at = 0;
  // `counts` as the record's format packs them (firmware/call_chains.h):
  // 12 bits each since format 4, 10 before.
  bool set(uint64_t counts, uint32_t format) {
    const uint32_t bits = format >= 4 ? kChainCountBits : 10;
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    low = counts & mask, reused = (counts >> bits) & mask, high = (counts >> 2 * bits) & mask;
    return (counts >> 3 * bits) == 0 && low + reused + high <= kMaxChainStackBytes / 8;
  }
  uint64_t sent() const { return low + high; }
};

// The head's first quadword and the user part's second, by format.
struct HeadFirst {
  uint16_t pid;
  uint8_t flags, sequence;
  uint64_t counts;
};
HeadFirst unpack_head_first(uint64_t first, uint32_t format) {
  if (format >= 4)
    return {static_cast<uint16_t>(first), static_cast<uint8_t>((first >> 16) & 0xf),
            static_cast<uint8_t>(first >> 20), first >> 28};
  return {static_cast<uint16_t>(first), static_cast<uint8_t>(first >> 16),
          static_cast<uint8_t>(first >> 24), first >> 32};
}
struct PartSecond {
  uint64_t counts, flags;
};
PartSecond unpack_part_second(uint64_t second, uint32_t format) {
  if (format >= 4)
    return {second & ((uint64_t{1} << 3 * kChainCountBits) - 1), second >> 3 * kChainCountBits};
  return {second & 0xffffffffu, second >> 32};
}

}  // namespace

bool ChainDecoder::decode(std::span<const uint8_t> payload, uint64_t epoch, uint16_t cpu,
                          std::vector<ChainSample>& out, uint64_t* dropped) {
  ChainsPayload header;
  if (payload.size() < sizeof header) return false;
  std::memcpy(&header, payload.data(), sizeof header);
  if (header.format < kChainsOldestFormat || header.format > kChainsFormat) return false;
  const bool kernel_stacks = header.format >= 3;
  if (uint64_t{header.words} * 8 != payload.size() - sizeof header) return false;
  std::vector<uint64_t> words(header.words);
  std::memcpy(words.data(), payload.data() + sizeof header, words.size() * 8);
  // Parsed first, rebuilt after: a malformed payload changes no state.
  struct Parsed {
    ChainSample sample;
    SentSlice own;   // the head's slice: a user sample's (reusing), a kernel sample's (whole)
    SentSlice user;  // a kernel sample's user part
  };
  const uint8_t known = kChainUser | kChainStackEnd | (kernel_stacks ? kChainUserPart : 0);
  std::vector<Parsed> parsed;
  for (size_t at = 0; at < words.size();) {
    if (words.size() - at < kChainHeadWords) return false;
    const HeadFirst first = unpack_head_first(words[at], header.format);
    Parsed p;
    p.sample.epoch = epoch;
    p.sample.cpu = cpu;
    p.sample.format = header.format;
    p.sample.pid = first.pid;
    p.sample.flags = first.flags;
    p.sample.sequence = first.sequence;
    if (!p.own.set(first.counts, header.format) || p.sample.flags & ~known) return false;
    const bool user = p.sample.flags & kChainUser;
    if (user && p.sample.has_user_part()) return false;
    if (!user && !kernel_stacks && p.own.low + p.own.reused + p.own.high != 0)
      return false;  // format 2: kernel samples carry no stack
    p.sample.pc = words[at + 1], p.sample.sp = words[at + 2], p.sample.ra = words[at + 3];
    p.sample.fp = words[at + 4], p.sample.t9 = words[at + 5];
    p.own.sp = p.sample.sp;
    at += kChainHeadWords;
    if (words.size() - at < p.own.sent()) return false;
    p.own.at = at;
    at += p.own.sent();
    if (p.sample.has_user_part()) {
      if (words.size() - at < kChainUserPartWords) return false;
      const PartSecond second = unpack_part_second(words[at + 1], header.format);
      p.sample.user_sp = p.user.sp = words[at];
      p.sample.user_flags = static_cast<uint8_t>(second.flags);
      if (!p.user.set(second.counts, header.format) || second.flags & ~uint64_t{kChainStackEnd})
        return false;
      at += kChainUserPartWords;
      if (words.size() - at < p.user.sent()) return false;
      p.user.at = at;
      at += p.user.sent();
    }
    parsed.push_back(std::move(p));
  }
  for (Parsed& p : parsed) {
    ChainSample& s = p.sample;
    Previous& previous = previous_[cpu];
    // A gap in the sequence: a lost record may have changed the guest's
    // references, so none of ours can be trusted until resent whole.
    if (!previous.seen || previous.next_sequence != s.sequence)
      previous.user.valid = previous.kernel.valid = false;
    previous.seen = true;
    previous.next_sequence = static_cast<uint8_t>(s.sequence + 1);
    // Rebuilds a slice: low, then the reused quadwords from `reference` (or
    // the slice ends there), then high; becomes the reference.
    auto rebuild = [&](const SentSlice& sent, Reference& reference, std::vector<uint64_t>& into) {
      const auto low = words.begin() + static_cast<ptrdiff_t>(sent.at);
      into.assign(low, low + static_cast<ptrdiff_t>(sent.low));
      bool whole = true;
      if (sent.reused != 0 &&
          !(reference.valid && take_reused(s, sent.sp + sent.low * 8, sent.reused, reference.slice,
                                           reference.sp, into))) {
        s.reference_lost = true;  // the slice ends below the quadwords it did not repeat
        ++references_lost_;
        whole = false;
      } else {
        into.insert(into.end(), low + static_cast<ptrdiff_t>(sent.low),
                    low + static_cast<ptrdiff_t>(sent.low + sent.high));
      }
      reference = Reference{whole, sent.sp, into};
    };
    if (s.user())
      rebuild(p.own, previous.user, s.stack);
    else if (s.format >= 3)
      rebuild(p.own, previous.kernel, s.stack);
    if (s.has_user_part()) rebuild(p.user, previous.user, s.user_stack);
    out.push_back(std::move(s));
  }
  *dropped = header.dropped;
  return true;
}

}  // namespace dcpi
