// ProfileMe's hardware on the 21164 model (issue 27; seed 004 §3-4,
// firmware/profileme.h): the Fetched Instruction Counter and the Profile
// Registers of one CPU, two sets of them for paired sampling. It watches
// what the model books (as a truth observer): the instructions fetched on
// the program's path (every block entered, a block cut short included: its
// instructions were fetched), and the stalls and events the model charges
// at a tagged instruction while its block runs. When that block is left the
// record is complete; when every armed record is, the unit raises
// EV5_OVERFLOW_PROFILEME. An instruction whose block an exit cut before it
// ran is recorded as aborted. Issue -> completion is the instruction's unit
// latency, or for a load the cycles until its data returned, as the model
// computes them for its readers' stalls.
//
// Paired sampling (§4.2): the second instruction is the minor interval's
// fetch after the first, and the unit measures the intra-pair fetch
// latency: the cycles charged from the first instruction's fetch (its own
// charge's start) to the second's, the costs and stalls of the
// instructions in between included.
//
// The wrong path: TCG runs the right path only, so the model tells the unit
// which instructions a mispredict fetched and squashed (squashed(); the
// rest of the wrong target's fetch block and the next one): they count as
// fetched, and one tagged is recorded at once, aborted.
#pragma once
#include <array>
#include <cstdint>

#include "firmware/profileme.h"
#include "qemu/machine/plugins/ev5/vcpu_truth.h"

namespace dcpi::ev5 {

class ProfileUnit : public TruthObserver {
 public:
  // The Fetched Instruction Counter (wrperfmon PERFMON_PROFILEME_ARM): the
  // major interval's fetched instruction from now is tagged, and, with a
  // minor interval, the minor interval's after it too; 0 turns it off,
  // dropping a record still in flight.
  void arm(uint64_t value);
  // Profile Register `index` (PROFILEME_REG_*, + PROFILEME_REG_SECOND for
  // the pair's second, PROFILEME_REG_PAIR_FETCH) of the last completed pair.
  uint64_t read(uint64_t index) const { return index < registers_.size() ? registers_[index] : 0; }
  // EV5_OVERFLOW_PROFILEME once per completed record (or pair), else 0.
  uint64_t take_completed();
  // Whether take_completed() has a record to hand out (inline: asked after
  // every callback, issue 31).
  bool has_completed() const { return completed_; }
  // The records take_completed handed out (a pair's interrupt two), which
  // the driver must all take (the truth's `event profileme_records`,
  // docs/profileme.md "Every record taken").
  uint64_t records_delivered() const { return delivered_; }
  void switch_space(uint32_t space) { space_ = space; }
  // The tagged instruction's load or store went to `vaddr`.
  void accessed(uint64_t pc, uint64_t vaddr);
  // Its D-cache miss was served beyond the S-cache (`scache`) or from
  // memory (`bcache`): the level that served it.
  void missed_levels(uint64_t pc, bool scache, bool bcache);
  // The records in progress end now (the vCPU stops).
  void flush();

  void entered(const BlockRecord& block) override;
  void cut(const BlockRecord& block, uint32_t index) override;
  void cycles(uint64_t, int64_t) override {}
  void event(uint64_t pc, ModelEvent event) override;
  void stalled(uint64_t pc, StallCause cause, uint64_t cycles) override;
  // The wrong path a mispredict fetched (issue 27 item 1): counted before
  // the block it was told with, as the 21164 fetched it.
  void squashed(uint64_t start, uint32_t count) override;
  // A tagged load's issue -> data (PROFILEME_REG_LATENCY2), and a trap.
  void load_returned(uint64_t pc, uint64_t cycles) override;
  // After its access (the memory-fault and unaligned vectors) the
  // instruction ran; without one (the illegal-opcode and FP-disabled
  // vectors, vcpu_model.cpp) QEMU raised the trap in its place: it did not
  // retire. `ran`: it completed (an arithmetic trap, VcpuModel::raised).
  void trapped(uint64_t pc, bool ran) override;

 private:
  // One set of Profile Registers while its instruction is in flight.
  struct Record {
    bool tagging = false;  // the tagged instruction's block is running
    bool done = false;     // complete since the counter was armed
    const BlockRecord* block = nullptr;
    uint32_t index = 0;
    uint64_t pc = 0, bits = 0, stall = 0, fetch = 0, issue = 0, address = 0;
    uint64_t complete = 0, load = 0;  // issue -> completion, load issue -> data
    bool accessed = false;            // its load or store was made (accessed, load_returned)
  };
  // The instructions of the running block whose cycles count towards the
  // intra-pair fetch latency: [from, to) of `block`.
  struct PairSpan {
    const BlockRecord* block = nullptr;
    uint32_t from = 0, to = 0;
  };

  void tag(Record& record, const BlockRecord& block, uint32_t index);
  void tag_squashed(uint64_t pc);
  // The block entered last is counted at the next callback (or at a
  // squash, after the wrong path the model tells right after the entry).
  void settle();
  void complete(Record& record, uint32_t set);
  void open_span(const BlockRecord& block, uint32_t from, uint32_t to);
  void take_in(const BlockRecord& block);

  bool completed_ = false;                // first: read after every callback (has_completed)
  const BlockRecord* pending_ = nullptr;  // entered, not yet counted
  uint64_t countdown_ = 0;                // fetched instructions until the next tag; 0: off
  uint64_t minor_ = 0;                    // the pair's minor interval, 0: no pair
  bool paired_ = false;                   // this arming tags a pair
  bool second_pending_ = false;
  std::array<Record, 2> records_{};
  // The intra-pair fetch latency: open from the first tag to the second.
  bool pair_open_ = false;
  uint64_t pair_cycles_ = 0;
  PairSpan span_{};
  uint32_t space_ = 0;
  uint64_t delivered_ = 0;
  std::array<uint64_t, PROFILEME_REGISTERS_ALL> registers_{};
};

}  // namespace dcpi::ev5
