#include "qemu/machine/plugins/ev5/vcpu_model.h"

#include <gtest/gtest.h>

#include <iterator>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "firmware/ev5_counters.h"
#include "tests/unit/ev5/encode.h"

namespace dcpi::ev5 {
namespace {

using namespace testing;

constexpr uint64_t kKseg = 0xfffffc0000000000ull;  // no TB lookups

uint64_t stall_of(const VcpuModel& model, uint64_t pc, StallCause cause, uint64_t culprit) {
  const auto& stalls = model.truth().stalls;
  const auto it = stalls.find(std::make_tuple(pc, cause, culprit));
  return it == stalls.end() ? 0 : it->second;
}

TEST(Ev5VcpuModel, ALoadMissStallsItsReaderAndHitsAfterwards) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x1000;
  BlockRecord block = testing::block_of(pc, {ldq(1, 16), addq(1, 1, 2)});
  EXPECT_EQ(model.enter(block), 100u);  // the cold I-cache line, from memory
  EXPECT_EQ(stall_of(model, pc, StallCause::kICacheMiss, kNoCulprit), 100u);
  // The load issues at 100 and misses everywhere: data at 200; its reader
  // issues statically two cycles after it.
  EXPECT_EQ(model.memory_access(block, 0, kKseg + 0x100000, 0x100000, false), 0u);
  EXPECT_NE(model.pending_loads() & (1u << 1), 0u);
  EXPECT_EQ(model.operands_ready(block, 1), 98u);
  EXPECT_EQ(model.pending_loads(), 0u);
  EXPECT_EQ(stall_of(model, pc + 4, StallCause::kDCacheMiss, pc), 98u);
  // Again: everything hits.
  EXPECT_EQ(model.enter(block), 0u);
  EXPECT_EQ(model.memory_access(block, 0, kKseg + 0x100000, 0x100000, false), 0u);
  EXPECT_EQ(model.operands_ready(block, 1), 0u);
  EXPECT_EQ(block.entries.load(), 2u);
  EXPECT_EQ(model.memory_events().dcache_miss, 1u);
}

// Issue 31: a missed load whose register nobody reads kept its slot in
// pending_loads() for good, and the plugin's `pending` word then called
// every later block's first readers back for nothing. The slot goes at the
// first block entered once its data are there, not before.
TEST(Ev5VcpuModel, ALoadsSlotIsDroppedAtTheFirstBlockStartedAfterItsDataCame) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x1000;
  BlockRecord load = testing::block_of(pc, {ldq(1, 16), addq(2, 2, 3)});
  BlockRecord other = testing::block_of(pc + 0x40, {addq(2, 2, 3)});  // another memory line
  BlockRecord reader = testing::block_of(pc + 0x80, {addq(1, 1, 2)});
  model.enter(load);  // starts at 0; the I-cache line from memory: 100
  model.memory_access(load, 0, kKseg + 0x100000, 0x100000, false);  // issues at 100, data at 200
  ASSERT_NE(model.pending_loads() & (1u << 1), 0u);
  // Starts at 102, before the data: the slot stays (a reader here waits).
  EXPECT_GE(model.enter(other), machine.memory_latency);
  EXPECT_NE(model.pending_loads() & (1u << 1), 0u);
  // Starts after its own line's fetch from memory, past 200.
  model.enter(other);
  EXPECT_EQ(model.pending_loads(), 0u);
  model.enter(reader);
  EXPECT_EQ(model.operands_ready(reader, 0), 0u);
  EXPECT_EQ(stall_of(model, pc + 0x80, StallCause::kDCacheMiss, pc), 0u);
}

// The 21164 traps to PALcode at the load or store and runs it again: the
// refill is its own stall, charged before its access (the patch's access
// charge), at the last instruction of a block as anywhere.
uint64_t count_at(const CountMap<uint64_t, std::hash<uint64_t>>& counts, uint64_t key) {
  const auto it = counts.find(key);
  return it == counts.end() ? 0 : it->second;
}

// ProfileMe (issue 27): a load's issue -> data is booked at its access (in
// the truth and in the tagged record's register 9), and a fault vector
// entered right after its access makes it a trap; entered after a block
// with no access, nothing traps.
TEST(Ev5VcpuModel, TheUnalignedVectorAfterAnAccessTrapsAndTheLoadsDataLatencyIsBooked) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x1000;
  BlockRecord block = testing::block_of(pc, {ldq(1, 16), addq(1, 1, 2)});
  BlockRecord other = testing::block_of(pc + 0x40, {addq(1, 1, 2)});
  BlockRecord unaligned = testing::block_of(kKseg + 0x300, {addq(1, 1, 2)});
  model.profileme_arm(1);  // the next fetched instruction: the ldq
  model.enter(block);
  model.memory_access(block, 0, kKseg + 0x100000, 0x100000, false);  // issues at 100, data at 200
  model.enter(unaligned);
  EXPECT_EQ(count_at(model.truth().latency.load_cycles, pc), 100u);
  EXPECT_EQ(count_at(model.truth().latency.traps, pc), 1u);
  EXPECT_EQ(model.take_overflow() & EV5_OVERFLOW_PROFILEME, uint64_t{EV5_OVERFLOW_PROFILEME});
  EXPECT_EQ(model.profileme_register(PROFILEME_REG_PC), pc);
  const uint64_t bits = model.profileme_register(PROFILEME_REG_EVENTS);
  EXPECT_TRUE(bits & PROFILEME_BIT_TRAP);
  EXPECT_TRUE(bits & PROFILEME_BIT_LOAD);
  EXPECT_EQ(model.profileme_register(PROFILEME_REG_LATENCY2) & PROFILEME_LAT2_LOAD_MASK, 100u);
  model.enter(other);
  model.enter(unaligned);
  EXPECT_EQ(count_at(model.truth().latency.traps, pc + 0x40), 0u);
  EXPECT_EQ(count_at(model.truth().latency.traps, pc), 1u);
}

TEST(Ev5VcpuModel, ADtbMissIsChargedAtTheLoadOrStoreItself) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x2000;
  BlockRecord block = testing::block_of(pc, {addq(2, 2, 3), ldq(1, 16)});
  model.enter(block);
  EXPECT_EQ(model.memory_access(block, 1, 0x120000000, 0x300000, false), machine.dtb_refill);
  EXPECT_EQ(stall_of(model, pc + 4, StallCause::kDtbMiss, pc + 4), machine.dtb_refill);
  EXPECT_EQ(model.memory_access(block, 1, 0x120000008, 0x300008, false), 0u);  // same page
  EXPECT_EQ(model.truth().dtb_miss, 1u);
  BlockRecord next = testing::block_of(pc + 8, {addq(2, 2, 3)});
  EXPECT_EQ(model.enter(next), 0u);  // nothing carried to the next block
}

// An exit at the charge before the access: the access was modelled, and the
// re-run (a block head) does not model it again.
TEST(Ev5VcpuModel, AnAccessModelledBeforeAnExitIsNotModelledAgain) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x3000;
  BlockRecord block = testing::block_of(pc, {addq(2, 2, 3), ldq(1, 16)});
  BlockRecord rerun = testing::block_of(pc + 4, {ldq(1, 16)});
  model.enter(block);
  EXPECT_EQ(model.memory_access(block, 1, 0x120000000, 0x300000, false), machine.dtb_refill);
  model.aborted(block, 1, false, true);
  model.enter(rerun);
  EXPECT_EQ(model.memory_access(rerun, 0, 0x120000000, 0x300000, false), 0u);
  EXPECT_EQ(model.memory_events().dcache_miss, 1u);
  EXPECT_EQ(model.truth().dtb_miss, 1u);
}

TEST(Ev5VcpuModel, AMispredictedLoopExitCostsFiveCycles) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x4000;
  BlockRecord loop = testing::block_of(pc, {addq(1, 1, 1), bne(1, -2)});
  BlockRecord after = testing::block_of(pc + 8, {addq(2, 2, 2)});
  model.enter(loop);
  EXPECT_EQ(model.enter(loop), 0u);   // taken backward branch: predicted
  EXPECT_EQ(model.enter(after), 5u);  // falls through: mispredicted
  EXPECT_EQ(stall_of(model, pc + 8, StallCause::kBranchMispredict, pc + 4), 5u);
  EXPECT_EQ(model.truth().mispredict, 1u);
  EXPECT_EQ(model.truth().edges.at({pc + 4, pc}), 1u);  // the taken branch
}

// Issue 26: a jump-table dispatch (`jmp (t0)` with no hint, as GCC emits
// it) predicts its target from the hint, PC + 4, and so mispredicts every
// case it dispatches to: the branch-mispredict penalty at the case's first
// instruction, blamed on the jump, and counter 2's PC mispredicts there.
TEST(Ev5VcpuModel, AnUnhintedJumpTableDispatchMispredictsItsTarget) {
  Machine machine;
  VcpuModel model(machine);
  std::string error;
  ASSERT_TRUE(model.counters().mux(uint64_t{EV5_SEL2_PC_MISPREDICTS} << EV5_MUX_SEL2_SHIFT, &error))
      << error;
  model.counters().frequency(uint64_t{EV5_CTL_COUNT} << EV5_CTL2_SHIFT);
  model.counters().enable(1u << 2);
  const uint64_t pc = kKseg + 0x1006000;  // beyond PALcode's region (not modelled there)
  BlockRecord dispatch = testing::block_of(pc, {addq(1, 1, 1), testing::jmp(1)});
  BlockRecord one = testing::block_of(pc + 0x100, {addq(2, 2, 2)});
  BlockRecord two = testing::block_of(pc + 0x200, {addq(3, 3, 3)});
  model.enter(dispatch);
  model.enter(one);  // cold I-cache line too: the penalty is booked on its own
  EXPECT_EQ(stall_of(model, pc + 0x100, StallCause::kBranchMispredict, pc + 4), 5u);
  model.enter(dispatch);
  EXPECT_EQ(model.enter(two) - stall_of(model, pc + 0x200, StallCause::kICacheMiss, kNoCulprit),
            5u);
  model.enter(dispatch);
  EXPECT_EQ(model.enter(one), 5u);  // warm now: only the mispredict
  EXPECT_EQ(model.truth().pc_mispredict, 3u);
  EXPECT_EQ(model.truth().mispredict, 0u);  // no conditional branch mispredicted
  EXPECT_EQ(model.counters().value(2), 3u);
}

// A hinted JSR and the RET back to its caller are predicted: no stall.
TEST(Ev5VcpuModel, AHintedCallAndItsReturnArePredicted) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x1007000;
  const uint64_t callee = pc + 0x400;
  // hint: (pc + 4 + 4 * hint)<15:0> = callee<15:0>
  const uint32_t hint = static_cast<uint32_t>((callee - (pc + 4)) / 4);
  BlockRecord call = testing::block_of(pc, {testing::jsr(26, 27, hint)});
  BlockRecord body = testing::block_of(callee, {addq(2, 2, 2), testing::ret()});
  BlockRecord back = testing::block_of(pc + 4, {addq(3, 3, 3)});
  for (int i = 0; i < 2; ++i) {
    model.enter(call);
    model.enter(body);
    model.enter(back);
  }
  EXPECT_EQ(model.truth().pc_mispredict, 0u);
  // The same call without its hint: the JSR's target is mispredicted, the
  // return still predicted.
  BlockRecord unhinted = testing::block_of(pc, {testing::jsr(26, 27)});
  model.enter(unhinted);
  EXPECT_EQ(model.enter(body), 5u);
  EXPECT_EQ(model.enter(back), 0u);
  EXPECT_EQ(model.truth().pc_mispredict, 1u);
}

// Issue 26: a load to the address a store wrote one cycle before replays
// (21164PC HRM p. 2-33: "costs seven cycles"), booked at the load as `other`
// and blamed on the store; counter 2's LDU replay traps count it. A load
// to another address, or far enough after, does not.
TEST(Ev5VcpuModel, ALoadRightAfterAStoreToItsAddressReplays) {
  Machine machine;
  VcpuModel model(machine);
  std::string error;
  ASSERT_TRUE(model.counters().mux(uint64_t{EV5_SEL2_LDU_REPLAYS} << EV5_MUX_SEL2_SHIFT, &error))
      << error;
  model.counters().frequency(uint64_t{EV5_CTL_COUNT} << EV5_CTL2_SHIFT);
  model.counters().enable(1u << 2);
  const uint64_t pc = kKseg + 0x1008000;
  const uint64_t data = kKseg + 0x200000;
  // The store issues alone (a store never pairs with a load), the load the
  // cycle after it.
  BlockRecord block = testing::block_of(pc, {stq(1, 16), ldq(2, 16)});
  ASSERT_EQ(block.timing.instructions[1].offset, block.timing.instructions[0].offset + 1);
  model.enter(block);
  EXPECT_EQ(model.memory_access(block, 0, data, data - kKseg, true), 0u);
  EXPECT_EQ(model.memory_access(block, 1, data, data - kKseg, false), machine.replay_penalty);
  EXPECT_EQ(stall_of(model, pc + 4, StallCause::kReplay, pc), 7u);
  EXPECT_EQ(model.truth().load_replays, 1u);
  EXPECT_EQ(model.counters().value(2), 1u);
  // Another address: no conflict.
  model.enter(block);
  EXPECT_EQ(model.memory_access(block, 0, data, data - kKseg, true), 0u);
  EXPECT_EQ(model.memory_access(block, 1, data + 8, data + 8 - kKseg, false), 0u);
  EXPECT_EQ(model.truth().load_replays, 1u);
  // A chain of dependent one-cycle adds delays the load: two cycles after
  // the store it is issue-stalled one cycle, three or more, nothing.
  std::set<uint64_t> apart;
  for (int adds = 1; adds <= 3; ++adds) {
    std::vector<uint32_t> words = {stq(1, 16)};
    for (int i = 0; i < adds; ++i) words.push_back(addq(3, 3, 3));
    words.push_back(ldq(2, 16));
    BlockRecord later = testing::block_of(pc + 0x40 * adds, words);
    const auto& t = later.timing.instructions;
    const uint64_t cycles = t.back().offset - t.front().offset;
    apart.insert(cycles);
    const uint64_t stall = cycles == 1 ? machine.replay_penalty : cycles == 2 ? 1 : 0;
    model.enter(later);
    EXPECT_EQ(model.memory_access(later, 0, data, data - kKseg, true), 0u);
    EXPECT_EQ(
        model.memory_access(later, static_cast<uint32_t>(t.size() - 1), data, data - kKseg, false),
        stall)
        << cycles << " cycles apart";
  }
  EXPECT_TRUE(apart.contains(1) && apart.contains(3)) << apart.size();
  const uint64_t replays = model.truth().load_replays;
  // Two cycles apart across blocks: the store block takes two cycles (the
  // store and an add, then a dependent add), the load heads the next one.
  BlockRecord store = testing::block_of(pc + 0x400, {stq(1, 16), addq(3, 3, 3), addq(3, 3, 3)});
  BlockRecord load = testing::block_of(pc + 0x440, {ldq(2, 16)});
  ASSERT_EQ(store.timing.static_cycles, 2u);
  model.enter(store);
  model.enter(load);  // warms the I-cache line
  model.enter(store);
  EXPECT_EQ(model.memory_access(store, 0, data, data - kKseg, true), 0u);
  EXPECT_EQ(model.enter(load), 0u);
  EXPECT_EQ(model.memory_access(load, 0, data, data - kKseg, false), 1u);
  EXPECT_EQ(stall_of(model, pc + 0x440, StallCause::kReplay, pc + 0x400), 1u);
  EXPECT_EQ(model.truth().load_replays, replays);  // a stall, not a replay
}

TEST(Ev5VcpuModel, AFullWriteBufferStallsTheStoreItself) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x5000;
  BlockRecord block = testing::block_of(pc, {stq(1, 16), addq(2, 2, 3)});
  uint64_t stalled = 0;
  for (uint64_t line = 0; line < 7; ++line) {
    model.enter(block);
    stalled +=
        model.memory_access(block, 0, kKseg + 0x200000 + 64 * line, 0x200000 + 64 * line, true);
  }
  EXPECT_GT(stalled, 0u);
  EXPECT_EQ(stall_of(model, pc, StallCause::kWriteBufferOverflow, pc), stalled);
}

TEST(Ev5VcpuModel, TheMultiplierStaysBusyAcrossBlocks) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x1006000;  // beyond PALcode's region (not modelled there)
  BlockRecord block = testing::block_of(pc, {mulq(1, 2, 3)});
  model.enter(block);
  EXPECT_EQ(model.unit_ready(block, 0), 0u);
  model.enter(block);  // one cycle later: busy for 7 more
  EXPECT_EQ(model.unit_ready(block, 0), 7u);
  EXPECT_EQ(stall_of(model, pc, StallCause::kMultiplierBusy, pc), 7u);
}

TEST(Ev5VcpuModel, AnExactExitUncountsTheRestOfTheBlockAndSkipsTheRerun) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x1007000;
  BlockRecord block = testing::block_of(pc, {ldq(1, 16), addq(1, 1, 2)});
  BlockRecord rerun = testing::block_of(pc + 4, {addq(1, 1, 2)});
  model.enter(block);
  model.aborted(block, 1);
  EXPECT_EQ(model.truth().exact_exits, 1u);
  // Settled when the next block is not the rest of this one run on.
  EXPECT_EQ(model.enter(rerun), 0u);  // its head's static charge is cancelled (it has none)
  EXPECT_EQ(block.executions(0), 1u);
  EXPECT_EQ(block.executions(1), 0u);
  // Its dependency cycle was charged at the exit; the re-run head counts 1, not its cost 1.
  EXPECT_EQ(model.truth().cycle_corrections.at(pc + 4), 1);
  EXPECT_EQ(stall_of(model, pc + 4, StallCause::kDependency, pc), 1u);
  EXPECT_TRUE(model.truth().edges.empty());  // pc -> pc + 4 is sequential
}

// An exit before a branch target's first instruction, re-run as an
// ordinary block with no interrupt between: the branch ran once, so the
// truth books its edge once (linux_paths_ev5 saw the truth one above the
// path tracker's count after such an exit).
TEST(Ev5VcpuModel, AnExitAtATargetsHeadBooksTheBranchOnce) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x7800;
  BlockRecord branch = testing::block_of(pc, {addq(1, 1, 1), bne(1, 5)});
  BlockRecord target = testing::block_of(pc + 32, {ldq(2, 16), addq(2, 2, 3)});
  BlockRecord shorter = testing::block_of(pc + 32, {ldq(2, 16)});
  model.enter(branch);
  model.enter(target);
  model.aborted(target, 0);
  model.enter(shorter);  // icount translated it shorter: no continuation
  EXPECT_EQ(model.truth().edges.at({pc + 4, pc + 32}), 1u);
  EXPECT_EQ(std::distance(model.truth().edges.begin(), model.truth().edges.end()), 1);
}

// An interrupt taken at that exit: the branch, then the interrupt from the
// last instruction that ran (the test's "interrupted" transfers).
TEST(Ev5VcpuModel, AnInterruptAtATargetsHeadBooksTheBranchAndTheInterrupt) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x7c00;
  BlockRecord branch = testing::block_of(pc, {addq(1, 1, 1), bne(1, 5)});
  BlockRecord target = testing::block_of(pc + 32, {ldq(2, 16), addq(2, 2, 3)});
  BlockRecord handler = testing::block_of(pc + 0x200, {addq(4, 4, 4)});
  model.enter(branch);
  model.enter(target);
  model.aborted(target, 0);
  model.enter(handler);
  EXPECT_EQ(model.truth().edges.at({pc + 4, pc + 32}), 1u);
  EXPECT_EQ(model.truth().edges.at({pc + 4, pc + 0x200}), 1u);
}

// Under icount QEMU abandons a block at a device access, runs the access
// alone (memory callbacks only) and goes on after it in a new block: the
// block's later instructions run once, in that block.
TEST(Ev5VcpuModel, ADeviceAccessQemuRanAloneCutsItsBlock) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x9000;
  BlockRecord block = testing::block_of(pc, {ldq(1, 16), addq(1, 1, 2), addq(2, 2, 3), bne(3, -4)});
  BlockRecord tail = testing::block_of(pc + 4, {addq(1, 1, 2), addq(2, 2, 3), bne(3, -4)});
  for (int i = 0; i < 3; ++i) {
    model.enter(block);
    model.memory_access(block, 0, kKseg + 0x200000, 0x200000, false);
    model.enter(tail);
  }
  EXPECT_EQ(block.executions(0), 3u);
  EXPECT_EQ(block.executions(1), 0u);
  EXPECT_EQ(tail.executions(0), 3u);
}

// QEMU raised an arithmetic trap from the helper of the block's first
// instruction (an addl/v that overflowed; our QEMU reports it, raised()):
// PALcode's arithmetic entry (QEMU's vector 0x400) runs, then the rest of
// the block as a block of its own. Each instruction counts once per
// iteration, the trap is the addl/v's, and so is the transfer into PALcode
// (the rest of the block was counted a second time before: issue 25).
TEST(Ev5VcpuModel, AnArithmeticTrapInsideABlockCutsTheInstructionsAfterIt) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0xb000;
  const std::vector<uint32_t> rest_words = {addq(1, 1, 2), addq(2, 2, 3), bne(3, -4)};
  std::vector<uint32_t> words = {addq(4, 4, 5)};
  words.insert(words.end(), rest_words.begin(), rest_words.end());
  BlockRecord block = testing::block_of(pc, words);
  BlockRecord rest = testing::block_of(pc + 4, rest_words);
  BlockRecord vector = testing::block_of(kKseg + 0x400, {addq(1, 1, 2)});
  model.profileme_arm(1);  // the next fetched instruction: the trapping one
  for (int i = 0; i < 3; ++i) {
    model.enter(block);
    EXPECT_EQ(model.raised(pc), pc + 4) << "the block is cut after it";
    model.enter(vector);
    model.enter(rest);
  }
  EXPECT_EQ(block.executions(0), 3u);
  for (uint32_t k = 1; k < 4; ++k) EXPECT_EQ(block.executions(k), 0u) << k;
  EXPECT_EQ(rest.executions(0), 3u);
  EXPECT_EQ(count_at(model.truth().latency.traps, pc), 3u);
  EXPECT_EQ(model.truth().edges.at({pc, kKseg + 0x400}), 3u);
  EXPECT_EQ(model.take_overflow() & EV5_OVERFLOW_PROFILEME, uint64_t{EV5_OVERFLOW_PROFILEME});
  EXPECT_EQ(model.profileme_register(PROFILEME_REG_PC), pc);
  const uint64_t bits = model.profileme_register(PROFILEME_REG_EVENTS);
  EXPECT_TRUE(bits & PROFILEME_BIT_TRAP);
  EXPECT_TRUE(bits & PROFILEME_BIT_RETIRED) << "it wrote its result before the trap";
}

// A load that faults (QEMU's memory-fault vector, 0x280) is reported by our
// QEMU and found by the vector after its access too: one trap, not two;
// the last instruction of its block cuts nothing.
TEST(Ev5VcpuModel, AReportedMemoryFaultIsOneTrap) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0xc000;
  BlockRecord block = testing::block_of(pc, {addq(1, 1, 2), ldq(1, 16)});
  BlockRecord fault = testing::block_of(kKseg + 0x280, {addq(1, 1, 2)});
  model.profileme_arm(2);  // the ldq
  model.enter(block);
  model.memory_access(block, 1, kKseg + 0x100000, 0x100000, false);
  EXPECT_EQ(model.raised(pc + 4), 0u) << "nothing after it to cut";
  model.enter(fault);
  EXPECT_EQ(block.executions(1), 1u);
  EXPECT_EQ(count_at(model.truth().latency.traps, pc + 4), 1u);
  EXPECT_EQ(model.truth().edges.at({pc + 4, kKseg + 0x280}), 1u);
}

// A loop that branches into its own middle after an access is no cut.
TEST(Ev5VcpuModel, ABranchBackIntoTheBlockAfterAnAccessIsNoCut) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0xa000;
  BlockRecord block = testing::block_of(pc, {ldq(1, 16), addq(1, 1, 2), bne(2, -2)});
  BlockRecord loop = testing::block_of(pc + 4, {addq(1, 1, 2), bne(2, -2)});
  model.enter(block);
  model.memory_access(block, 0, kKseg + 0x200000, 0x200000, false);
  model.enter(loop);  // bne's target: pc + 12 - 8
  EXPECT_EQ(block.executions(2), 1u);
}

// The patch's step exit: a charge whose deadline lay further on in the block
// leaves it before the charged instruction, and the rest runs next as a step
// block, which goes on timing the block as it was (the dependency cycle is
// not lost, the instruction counted once, as the block's).
TEST(Ev5VcpuModel, AStepBlockRightAfterAnExitContinuesTheBlock) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x1007000;
  BlockRecord block = testing::block_of(pc, {ldq(1, 16), addq(1, 1, 2), addq(2, 2, 3)});
  BlockRecord rest = testing::block_of(pc + 4, {addq(1, 1, 2), addq(2, 2, 3)});
  ASSERT_EQ(block.timing.instructions[1].cost, 2u);  // waits a cycle for the load
  model.enter(block);
  model.aborted(block, 1);  // its charge (the wait) was made
  EXPECT_EQ(model.enter(rest, true), 0u);
  EXPECT_EQ(model.step_units(rest, 0), 1u);  // what is left of it: its issue
  EXPECT_EQ(model.step_units(rest, 1), block.timing.instructions[2].cost);
  EXPECT_EQ(rest.entries.load(), 0u);  // counted as the block's
  EXPECT_EQ(block.executions(2), 1u);
  EXPECT_TRUE(model.truth().cycle_corrections.empty());
  // A deadline in the step block: its exit is the block's (a cut at 2).
  model.aborted(rest, 1, true);
  BlockRecord other = testing::block_of(pc + 0x100, {addq(1, 1, 2)});
  model.enter(other);
  EXPECT_EQ(block.executions(1), 1u);
  EXPECT_EQ(block.executions(2), 0u);
  EXPECT_EQ(model.truth().cycle_corrections.at(pc + 8), block.timing.instructions[2].cost);
}

// Issue 25, seed 179's g10_dtb loop: a deadline further on in the block than
// a load's DTB refill leaves the block at that charge, and the rest runs as a
// step block. QEMU translated that rest as a block of its own, in which every
// register is live in: it has readers the block it continues does not (here
// an instruction reading the loaded register after the block overwrote it,
// and a register the block read already). Timed as the block it continues,
// such a reader does not wait for the load; waiting there only in the passes
// a deadline falls in moved the samples of the next load's refill onto it.
TEST(Ev5VcpuModel, AStepBlockWaitsOnlyWhereTheBlockItContinuesWaits) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0xb000;
  const std::vector<uint32_t> words = {addq(6, 6, 5), ldq(1, 16), addq(2, 2, 1), addq(1, 6, 3),
                                       bne(3, -5)};
  BlockRecord block = testing::block_of(pc, words);
  BlockRecord rest = testing::block_of(pc + 4, {words.begin() + 1, words.end()});
  ASSERT_FALSE(block.timing.instructions[3].reads_loaded);  // r1 overwritten, r6 read before
  ASSERT_TRUE(rest.timing.instructions[2].reads_loaded);    // r6 live into the step block
  model.enter(block);
  // The refill's charge ran past the budget with the deadline further on.
  EXPECT_EQ(model.memory_access(block, 1, 0x120000000, 0x300000, false), machine.dtb_refill);
  ASSERT_NE(model.pending_loads() & (1u << 1), 0u);  // and the load missed
  model.aborted(block, 1, false, true);
  EXPECT_EQ(model.enter(rest, true), 0u);
  EXPECT_EQ(model.step_units(rest, 0), 1u);
  EXPECT_EQ(model.memory_access(rest, 0, 0x120000000, 0x300000, false), 0u);
  model.step_units(rest, 1);
  model.step_units(rest, 2);
  EXPECT_EQ(model.operands_ready(rest, 2), 0u);  // the step block's callback: no wait
  EXPECT_EQ(stall_of(model, pc + 12, StallCause::kDCacheMiss, pc + 4), 0u);
  EXPECT_NE(model.pending_loads() & (1u << 1), 0u);  // still outstanding, as in the block
}

}  // namespace
}  // namespace dcpi::ev5

namespace dcpi::ev5 {
namespace {

// An I-cache miss of a block's later line stalls at that line's first
// instruction, where fetch reaches it (dcpicalc looks for it there, DCPI
// §6.3), not at the block's head.
TEST(Ev5VcpuModel, ALaterLinesMissStallsAtItsFirstInstruction) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = kKseg + 0x4018;  // two instructions before a line boundary
  BlockRecord block = testing::block_of(
      pc, {testing::addq(1, 1, 1), testing::addq(2, 2, 2), testing::addq(3, 3, 3)});
  ASSERT_TRUE(block.timing.instructions[2].starts_line);
  EXPECT_EQ(model.enter(block), 100u);  // the head's line only
  EXPECT_TRUE(model.fetch_pending());
  // The next 32 bytes: the same 64-byte S-cache line, still arriving; the
  // 16 bytes fetch wants come in its last data cycle (wrap order 1, 0, 3, 2).
  EXPECT_EQ(model.line_fetch(block, 2), 20u);
  EXPECT_FALSE(model.fetch_pending());
  EXPECT_EQ(model.line_fetch(block, 2), 0u);  // charged once
  EXPECT_EQ(stall_of(model, pc, StallCause::kICacheMiss, kNoCulprit), 100u);
  EXPECT_EQ(stall_of(model, pc + 8, StallCause::kICacheMiss, kNoCulprit), 20u);
  model.enter(block);  // both lines are there now
  EXPECT_FALSE(model.fetch_pending());
}

// Counter 1's loads and stores reach the truth's (PC, event) counts per
// instruction, settled at the end (issue 31: dense counts between
// settles); without a truth file the same run times and stalls alike but
// keeps none of the truth's maps.
uint64_t event_count(const VcpuModel& model, uint64_t pc, ModelEvent event) {
  const auto it = model.truth().events.find({pc, static_cast<uint64_t>(event)});
  return it == model.truth().events.end() ? 0 : it->second;
}

TEST(Ev5VcpuModel, LoadsAndStoresAreCountedPerInstructionAndNotKeptWithoutATruthFile) {
  Machine machine;
  VcpuModel recorded(machine), unrecorded(machine);
  unrecorded.record_truth(false);
  const uint64_t pc = kKseg + 0x1000;
  BlockRecord block = testing::block_of(pc, {ldq(1, 16), stq(2, 16, 8), addq(1, 1, 2)});
  for (VcpuModel* model : {&recorded, &unrecorded}) {
    std::vector<uint64_t> stalls;
    for (int pass = 0; pass < 3; ++pass) {
      stalls.push_back(model->enter(block));
      stalls.push_back(model->memory_access(block, 0, kKseg + 0x100000, 0x100000, false));
      stalls.push_back(model->memory_access(block, 1, kKseg + 0x100008, 0x100008, true));
      stalls.push_back(model->operands_ready(block, 2));
    }
    model->settle_truth();
    EXPECT_EQ(stalls, (std::vector<uint64_t>{100, 0, 0, 98, 0, 0, 0, 0, 0, 0, 0, 0}));
  }
  EXPECT_EQ(event_count(recorded, pc, ModelEvent::kLoad), 3u);
  EXPECT_EQ(event_count(recorded, pc + 4, ModelEvent::kStore), 3u);
  EXPECT_EQ(event_count(recorded, pc, ModelEvent::kStore), 0u);
  EXPECT_FALSE(recorded.truth().stalls.empty());
  EXPECT_TRUE(unrecorded.truth().events.empty());
  EXPECT_TRUE(unrecorded.truth().stalls.empty());
  EXPECT_EQ(unrecorded.memory_events().dcache_miss, recorded.memory_events().dcache_miss);
}

}  // namespace
}  // namespace dcpi::ev5
