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
  uint32_t format = kChainsFormat;  // the record's: 2 has no kernel stacks
  bool reference_lost = false;  // its reused quadwords were not available: the user slice is cut
  uint64_t pc = 0, sp = 0, ra = 0, fp = 0, t9 = 0;  // r30, r26, r15, r23
  std::vector<uint64_t> stack;                      // the quadwords at sp, sp + 8, ...
  // Format 3, a kernel-mode sample whose thread entered the kernel from user
  // mode (kChainUserPart): that context's sp and the user stack above it.
  uint64_t user_sp = 0;
  uint8_t user_flags = 0;  // kChainStackEnd: the user slice ended at an unreadable page
  std::vector<uint64_t> user_stack;

  bool user() const { return flags & kChainUser; }
  bool has_user_part() const { return flags & kChainUserPart; }
  // The quadword at `address` if a slice holds it (kernel and user
  // addresses never overlap: KSEG is the top of the address space).
  bool read(uint64_t address, uint64_t* value) const {
    return read_slice(stack, sp, address, value) ||
           (has_user_part() && read_slice(user_stack, user_sp, address, value));
  }

 private:
  static bool read_slice(const std::vector<uint64_t>& slice, uint64_t base, uint64_t address,
                         uint64_t* value) {
    if (address < base || (address & 7) != 0) return false;
    const uint64_t index = (address - base) / 8;
    if (index >= slice.size()) return false;
    *value = slice[index];
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
  // One kind's previous recorded slice of a CPU (the guest's
  // ChainReference, driver/chain_reference.h).
  struct Reference {
    bool valid = false;
    uint64_t sp = 0;
    std::vector<uint64_t> slice;
  };
  struct Previous {
    bool seen = false;
    uint8_t next_sequence = 0;
    Reference user, kernel;  // kernel: format 3's kernel-mode samples
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
