#include "qemu/machine/plugins/ev5/profile_unit.h"

#include <algorithm>

#include "firmware/memory_map.h"

namespace dcpi::ev5 {

namespace {

uint64_t bit_of(ModelEvent event) {
  switch (event) {
    case ModelEvent::kICacheMiss:
      return PROFILEME_BIT_IMISS;
    case ModelEvent::kItbMiss:
      return PROFILEME_BIT_ITBMISS;
    case ModelEvent::kDCacheMiss:
      return PROFILEME_BIT_DMISS;
    case ModelEvent::kDtbMiss:
      return PROFILEME_BIT_DTBMISS;
    case ModelEvent::kBranchMispredict:
      return PROFILEME_BIT_MISPREDICT;
    case ModelEvent::kLoadReplay:
      return PROFILEME_BIT_REPLAY;
    default:
      return 0;
  }
}

uint64_t saturate(uint64_t value, uint64_t mask) { return std::min(value, mask); }

}  // namespace

void ProfileUnit::arm(uint64_t value) {
  countdown_ = value & PROFILEME_ARM_MAJOR_MASK;
  minor_ = value >> PROFILEME_ARM_MINOR_SHIFT;
  paired_ = countdown_ != 0 && minor_ != 0;
  second_pending_ = paired_;
  for (Record& r : records_) {
    r.done = false;
    // Turned off, the unit drops the instruction it may still be tagging:
    // no record completes (and interrupts) after software stopped sampling
    // (the driver's stop, driver/profileme_sampler.cpp profileme_stop).
    if (countdown_ == 0) r.tagging = false;
  }
  pair_open_ = false;
  pair_cycles_ = 0;
}

uint64_t ProfileUnit::take_completed() {
  if (!completed_) return 0;
  completed_ = false;
  delivered_ += paired_ ? 2 : 1;  // a pair's interrupt delivers both records
  return EV5_OVERFLOW_PROFILEME;
}

void ProfileUnit::tag(Record& record, const BlockRecord& block, uint32_t index) {
  const auto& instruction = block.timing.instructions[index];
  record.tagging = true;
  record.block = &block;
  record.index = index;
  record.pc = instruction.pc;
  record.bits = PROFILEME_BIT_RETIRED | (is_palcode_address(record.pc) ? PROFILEME_BIT_PAL : 0);
  record.stall = record.fetch = record.address = record.load = 0;
  record.accessed = false;
  record.issue = instruction.cost;
  record.complete = instruction.latency;  // a load's when its data returns
}

// The static costs of [from, to) count now; their stalls as they come.
void ProfileUnit::open_span(const BlockRecord& block, uint32_t from, uint32_t to) {
  span_ = PairSpan{&block, from, to};
  for (uint32_t i = from; i < to; ++i) pair_cycles_ += block.timing.instructions[i].cost;
}

// Counts the fetched instructions of `block`, tagging each one the
// countdown reaches: the first (then the countdown runs the minor interval,
// and the fetch latency starts with the first's own cycles) or the pair's
// second (the latency's span ends before it).
void ProfileUnit::take_in(const BlockRecord& block) {
  const auto size = static_cast<uint32_t>(block.timing.instructions.size());
  uint32_t next = 0, span_from = 0;
  while (countdown_ != 0) {
    if (countdown_ > size - next) {
      countdown_ -= size - next;
      if (pair_open_) open_span(block, span_from, size);
      return;
    }
    const auto index = static_cast<uint32_t>(next + countdown_ - 1);
    countdown_ = 0;  // software arms it again after reading the record
    next = index + 1;
    if (pair_open_) {
      open_span(block, span_from, index);
      pair_open_ = false;
      second_pending_ = false;
      tag(records_[1], block, index);
      return;
    }
    tag(records_[0], block, index);
    if (!paired_) return;
    countdown_ = minor_;
    pair_open_ = true;
    pair_cycles_ = 0;
    span_from = index;
  }
}

void ProfileUnit::entered(const BlockRecord& block) {
  settle();
  // The tagged instructions' blocks were left: they retired.
  for (uint32_t set = 0; set < records_.size(); ++set)
    if (records_[set].tagging) complete(records_[set], set);
  span_ = PairSpan{};
  pending_ = &block;
}

void ProfileUnit::settle() {
  const BlockRecord* block = pending_;
  pending_ = nullptr;
  if (block) take_in(*block);
}

// A squashed instruction: fetched, never issued, recorded at once.
void ProfileUnit::tag_squashed(uint64_t pc) {
  const uint32_t set = pair_open_ ? 1 : 0;
  Record& r = records_[set];
  r = Record{};
  r.pc = pc;
  r.bits = is_palcode_address(pc) ? PROFILEME_BIT_PAL : 0;  // aborted: no retired bit
  if (set == 1) {
    pair_open_ = false;
    second_pending_ = false;
  } else if (paired_) {
    countdown_ = minor_;  // the wrong path takes no cycles: the latency starts at 0
    pair_open_ = true;
    pair_cycles_ = 0;
  }
  complete(r, set);
}

void ProfileUnit::squashed(uint64_t start, uint32_t count) {
  uint32_t next = 0;
  while (countdown_ != 0 && next < count) {
    if (countdown_ > count - next) {
      countdown_ -= count - next;
      break;
    }
    const auto index = static_cast<uint32_t>(next + countdown_ - 1);
    countdown_ = 0;
    tag_squashed(start + 4 * uint64_t{index});
    next = index + 1;
  }
  settle();
}

void ProfileUnit::cut(const BlockRecord& block, uint32_t index) {
  settle();
  if (span_.block == &block && index < span_.to) {  // [index, to) did not run
    const uint32_t from = std::max(index, span_.from);
    for (uint32_t i = from; i < span_.to; ++i) pair_cycles_ -= block.timing.instructions[i].cost;
    span_.to = from;
  }
  for (uint32_t set = 0; set < records_.size(); ++set) {
    Record& r = records_[set];
    if (!r.tagging || r.block != &block || r.index < index) continue;
    r.bits &= ~uint64_t{PROFILEME_BIT_RETIRED};  // fetched, but the exit came first
    complete(r, set);
  }
}

void ProfileUnit::event(uint64_t pc, ModelEvent event) {
  settle();
  for (Record& r : records_)
    if (r.tagging && pc == r.pc) r.bits |= bit_of(event);
}

void ProfileUnit::stalled(uint64_t pc, StallCause cause, uint64_t cycles) {
  settle();
  if (span_.block && span_.from < span_.to) {
    const auto& instructions = span_.block->timing.instructions;
    if (pc >= instructions[span_.from].pc && pc <= instructions[span_.to - 1].pc)
      pair_cycles_ += cycles;
  }
  for (Record& r : records_) {
    if (!r.tagging || pc != r.pc) continue;
    (is_fetch_stall(cause) ? r.fetch : r.stall) += cycles;
    if (cause == StallCause::kWriteBufferOverflow && cycles != 0) r.bits |= PROFILEME_BIT_WBUF;
  }
}

void ProfileUnit::missed_levels(uint64_t pc, bool scache, bool bcache) {
  settle();
  for (Record& r : records_) {
    if (!r.tagging || pc != r.pc) continue;
    if (scache) r.bits |= PROFILEME_BIT_SMISS;
    if (bcache) r.bits |= PROFILEME_BIT_BMISS;
  }
}

void ProfileUnit::load_returned(uint64_t pc, uint64_t cycles) {
  settle();
  for (Record& r : records_)
    if (r.tagging && pc == r.pc) {
      r.complete = r.load = cycles;
      r.bits |= PROFILEME_BIT_LOAD;
      r.accessed = true;
    }
}

void ProfileUnit::trapped(uint64_t pc, bool ran) {
  settle();
  for (Record& r : records_) {
    if (!r.tagging || pc != r.pc) continue;
    r.bits |= PROFILEME_BIT_TRAP;
    // OPCDEC or FEN: the exception took the instruction's place (21164 HRM
    // Table 6-1: the trapping instruction does not complete).
    if (!ran && !r.accessed) r.bits &= ~uint64_t{PROFILEME_BIT_RETIRED};
  }
}

void ProfileUnit::accessed(uint64_t pc, uint64_t vaddr) {
  settle();
  for (Record& r : records_)
    if (r.tagging && pc == r.pc) {
      r.address = vaddr;
      r.accessed = true;
    }
}

void ProfileUnit::flush() {
  settle();
  for (uint32_t set = 0; set < records_.size(); ++set)
    if (records_[set].tagging) complete(records_[set], set);
}

void ProfileUnit::complete(Record& r, uint32_t set) {
  r.tagging = false;
  r.done = true;
  const uint32_t base = set * PROFILEME_REG_SECOND;
  registers_[base + PROFILEME_REG_PC] = r.pc;
  registers_[base + PROFILEME_REG_EVENTS] = r.bits | uint64_t{space_} << PROFILEME_SPACE_SHIFT;
  registers_[base + PROFILEME_REG_LATENCY] =
      saturate(r.stall, PROFILEME_LAT_STALL_MASK) << PROFILEME_LAT_STALL_SHIFT |
      saturate(r.fetch, PROFILEME_LAT_FETCH_MASK) << PROFILEME_LAT_FETCH_SHIFT |
      saturate(r.issue, PROFILEME_LAT_ISSUE_MASK) << PROFILEME_LAT_ISSUE_SHIFT;
  registers_[base + PROFILEME_REG_ADDRESS] = r.address;
  // An aborted instruction completed nothing, unless its load's access was
  // made before the exit (then the re-run does not make it again).
  const uint64_t complete = r.bits & PROFILEME_BIT_RETIRED ? r.complete : r.load;
  registers_[set ? PROFILEME_REG_LATENCY2_SECOND : PROFILEME_REG_LATENCY2] =
      saturate(r.load, PROFILEME_LAT2_LOAD_MASK) << PROFILEME_LAT2_LOAD_SHIFT |
      saturate(complete, PROFILEME_LAT2_COMPLETE_MASK) << PROFILEME_LAT2_COMPLETE_SHIFT;
  // The interrupt waits for every record the arming asked for (§4.2).
  if (!records_[0].done || (paired_ && (second_pending_ || !records_[1].done))) return;
  if (paired_) registers_[PROFILEME_REG_PAIR_FETCH] = pair_cycles_;
  completed_ = true;
}

}  // namespace dcpi::ev5
