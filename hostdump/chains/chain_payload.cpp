#include "hostdump/chains/chain_payload.h"

#include <cstring>

namespace dcpi {

bool decode_chain_payload(std::span<const uint8_t> payload, uint64_t epoch, uint16_t cpu,
                          std::vector<ChainSample>& out, uint64_t* dropped) {
  ChainsPayload header;
  if (payload.size() < sizeof header) return false;
  std::memcpy(&header, payload.data(), sizeof header);
  if (header.format != kChainsFormat) return false;
  if (uint64_t{header.words} * 8 != payload.size() - sizeof header) return false;
  std::vector<uint64_t> words(header.words);
  std::memcpy(words.data(), payload.data() + sizeof header, words.size() * 8);
  std::vector<ChainSample> samples;
  for (size_t at = 0; at < words.size();) {
    if (words.size() - at < kChainHeadWords) return false;
    const uint64_t first = words[at];
    ChainSample s;
    s.epoch = epoch;
    s.cpu = cpu;
    s.pid = static_cast<uint16_t>(first);
    s.flags = static_cast<uint8_t>(first >> 16);
    const uint64_t stack_words = (first >> 32) & 0xffff;
    if ((first >> 24) & 0xff || first >> 48 || s.flags & ~(kChainUser | kChainStackEnd))
      return false;
    if (stack_words > kMaxChainStackBytes / 8 || words.size() - at - kChainHeadWords < stack_words)
      return false;
    s.pc = words[at + 1], s.sp = words[at + 2], s.ra = words[at + 3];
    s.fp = words[at + 4], s.gp = words[at + 5];
    s.stack.assign(words.begin() + at + kChainHeadWords,
                   words.begin() + at + kChainHeadWords + stack_words);
    samples.push_back(std::move(s));
    at += kChainHeadWords + stack_words;
  }
  *dropped = header.dropped;
  for (ChainSample& s : samples) out.push_back(std::move(s));
  return true;
}

}  // namespace dcpi
