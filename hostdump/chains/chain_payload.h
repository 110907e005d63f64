// The kChains payload (firmware/call_chains.h) decoded into one sample per
// interrupt: the registers and the stack slice the host unwinds
// (hostdump/run/chain_unwind.h). hostdump itself never reads ELF files, so
// the unwinding is a ChainSink the run plugs into the ProfileBuilder.
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "firmware/call_chains.h"

namespace dcpi {

class LoadMapModel;

struct ChainSample {
  uint64_t epoch = 0;  // database epoch
  uint16_t cpu = 0;
  uint16_t pid = 0;
  uint8_t flags = 0;  // ChainFlags
  uint8_t sequence = 0;
  bool reference_lost = false;  // its reused quadwords were not available: the slice is cut
  uint64_t pc = 0, sp = 0, ra = 0, fp = 0, t9 = 0;  // r30, r26, r15, r23
  std::vector<uint64_t> stack;                      // the quadwords at sp, sp + 8, ...

  bool user() const { return flags & kChainUser; }
  // The quadword at `address` if the slice holds it.
  bool read(uint64_t address, uint64_t* value) const {
    if (address < sp || (address & 7) != 0) return false;
    const uint64_t index = (address - sp) / 8;
    if (index >= stack.size()) return false;
    *value = stack[index];
    return true;
  }
};

// Splits payloads into samples and rebuilds each slice from its low and
// high quadwords and the previous sample of the same CPU (the reused ones,
// firmware/call_chains.h). One per transfer stream: it remembers each CPU's
// last slice.
class ChainDecoder {
 public:
  // False (and `out` untouched) when the payload is malformed: a short
  // header, an unknown format, a sample running past the end, reserved
  // bits set.
  bool decode(std::span<const uint8_t> payload, uint64_t epoch, uint16_t cpu,
              std::vector<ChainSample>& out, uint64_t* dropped);
  uint64_t references_lost() const { return references_lost_; }

 private:
  struct Previous {
    bool valid = false;
    uint8_t next_sequence = 0;
    uint64_t sp = 0;
    std::vector<uint64_t> slice;
  };
  std::map<uint16_t, Previous> previous_;
  uint64_t references_lost_ = 0;
};

// Where the builder hands each decoded sample, with the load map as it is
// when the record arrives (the images a sample's frames must be found in).
class ChainSink {
 public:
  virtual ~ChainSink() = default;
  virtual void add(const ChainSample& sample, const LoadMapModel& load_map) = 0;
  virtual void add_dropped(uint64_t epoch, uint64_t samples) = 0;
};

}  // namespace dcpi
