// ProfileMe's hardware on the 21164 model (issue 27; seed 004 §3,
// firmware/profileme.h): the Fetched Instruction Counter and the Profile
// Registers of one CPU. It watches what the model books (as a truth
// observer): the instructions fetched on the program's path (every block
// entered, a block cut short included: its instructions were fetched), and
// the stalls and events the model charges at the tagged instruction while
// its block runs. When that block is left the record is complete and the
// unit raises EV5_OVERFLOW_PROFILEME; an instruction whose block an exit
// cut before it ran is recorded as aborted.
//
// Not modelled (docs/profileme.md): the wrong-path instructions a
// mispredicted branch makes the 21164 fetch and squash (TCG runs the right
// path only); so nothing is ever aborted by a mispredict.
#pragma once
#include <array>
#include <cstdint>

#include "firmware/profileme.h"
#include "qemu/machine/plugins/ev5/vcpu_truth.h"

namespace dcpi::ev5 {

class ProfileUnit : public TruthObserver {
 public:
  // The Fetched Instruction Counter (wrperfmon PERFMON_PROFILEME_ARM): the
  // `fetched`-th instruction fetched from now is tagged; 0 turns it off.
  void arm(uint64_t fetched);
  // Profile Register `index` (PROFILEME_REG_*) of the last completed record.
  uint64_t read(uint64_t index) const { return index < registers_.size() ? registers_[index] : 0; }
  // EV5_OVERFLOW_PROFILEME once per completed record, else 0.
  uint64_t take_completed();
  void switch_space(uint32_t space) { space_ = space; }
  // The tagged instruction's load or store went to `vaddr`.
  void accessed(uint64_t pc, uint64_t vaddr);
  // Its D-cache miss was served beyond the S-cache (`scache`) or from
  // memory (`bcache`): the level that served it.
  void missed_levels(uint64_t pc, bool scache, bool bcache);
  // The record in progress ends now (the vCPU stops).
  void flush();

  void entered(const BlockRecord& block) override;
  void cut(const BlockRecord& block, uint32_t index) override;
  void cycles(uint64_t, int64_t) override {}
  void event(uint64_t pc, ModelEvent event) override;
  void stalled(uint64_t pc, StallCause cause, uint64_t cycles) override;

 private:
  void complete();

  uint64_t countdown_ = 0;  // fetched instructions until the tag; 0: off
  bool tagging_ = false;    // the tagged instruction's block is running
  const BlockRecord* block_ = nullptr;
  uint32_t index_ = 0;
  uint64_t pc_ = 0, bits_ = 0, stall_ = 0, fetch_ = 0, issue_ = 0, address_ = 0;
  uint32_t space_ = 0;
  bool completed_ = false;
  std::array<uint64_t, PROFILEME_REGISTERS> registers_{};
};

}  // namespace dcpi::ev5
