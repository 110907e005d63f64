#include "analysis/calc/estimate/culprits.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <span>

#include "analysis/calc/estimate/superpage_addresses.h"
#include "isa/decode.h"
#include "isa/ev5.h"

namespace dcpi::calc {

bool event_at_culprit(StallCause cause) { return cause == StallCause::kDCacheMiss; }

namespace {

// The schedule's issue cycles between a store and a load that can still
// meet the store in the pipeline: its first cycle after (a replay trap) and
// its second (a one-cycle wait); a dual issue of the two counts as 0.
constexpr uint32_t kReplayWindow = 2;

// How many blocks back a live-in register's writer is looked for: bytecode's
// operand loads find the handler's `mov t3,t1` four blocks back (handler,
// dispatch, loop head, the division's return block, its call block).
constexpr int kLiveInDepth = 4;

// A memory-format access's address as its word names it: base register and
// displacement (records made without a word have none).
struct AddressOperand {
  uint8_t base = 31;
  int32_t displacement = 0;
  bool operator==(const AddressOperand&) const = default;
};

std::optional<AddressOperand> address_operand(const InstructionRecord& in) {
  const isa::Instruction word = isa::decode(in.encoding);
  if (word.format != isa::Format::kMemory) return std::nullopt;
  return AddressOperand{.base = word.rb, .displacement = word.displacement};
}

class CulpritFinder {
 public:
  CulpritFinder(const ProcedureAnalysis& a, const ProcessorModel& m, const CulpritOptions& o)
      : analysis_(a), model_(m), options_(o), cfg_(a.cfg) {
    virtual_predecessor_.assign(cfg_.blocks().size(), false);
    for (BlockId b : analysis_.augmentation.from_virtual_start)
      if (b < virtual_predecessor_.size()) virtual_predecessor_[b] = true;
  }

  // The candidates that stay, and those the event samples rule out.
  // Gathered in scratch vectors, then copied once at their final size.
  void candidates(BlockId b, size_t i, DynamicStall& stall) const {
    kept_.clear(), ruled_out_.clear();
    for (StallCause cause : model_.dynamic_stall_causes()) {
      possible_.clear();
      possible(cause, b, i, possible_);
      for (CulpritCandidate& candidate : possible_)
        (weigh(candidate, b, i) ? kept_ : ruled_out_).push_back(candidate);
    }
    stall.candidates = kept_;
    stall.ruled_out = ruled_out_;
  }

 private:
  const InstructionRecord& insn(BlockId b, size_t i) const { return cfg_.block(b).instructions[i]; }

  // Predecessor blocks that execute often enough to matter (§6.3). Worked
  // out for every block at the first question, into one array: every rule
  // asks for them (issue 31: a vector per block asked for before).
  std::span<const BlockId> frequent_predecessors(BlockId b) const {
    if (predecessors_first_.empty()) find_frequent_predecessors();
    return std::span<const BlockId>(predecessors_)
        .subspan(predecessors_first_[b], predecessors_first_[b + 1] - predecessors_first_[b]);
  }
  void find_frequent_predecessors() const {
    predecessors_first_.reserve(cfg_.blocks().size() + 1);
    predecessors_first_.push_back(0);
    for (BlockId b = 0; b < cfg_.blocks().size(); ++b) {
      const double frequency = analysis_.block_frequency(b).value_or(0);
      for (EdgeId e : cfg_.block(b).incoming) {
        const std::optional<double> f = analysis_.edge_frequency(e);
        if (f && *f < options_.rare_edge_fraction * frequency) continue;
        predecessors_.push_back(cfg_.edge(e).from);
      }
      predecessors_first_.push_back(predecessors_.size());
    }
  }
  bool unknown_predecessors(BlockId b) const {
    return virtual_predecessor_[b] || cfg_.missing_edges();
  }

  // The CALL_PAL whose PALcode returns to instruction i of block b, if any
  // (the analysis's palcode_landings: a few a procedure at most).
  std::optional<uint64_t> palcode_call(BlockId b, size_t i) const {
    for (const PalcodeLanding& l : analysis_.palcode_landings)
      if (l.block == b && l.instruction == i) return l.call;
    return std::nullopt;
  }

  // §6.3's rule for I-cache misses, applied with `unit` bytes (an I-cache
  // line, or a page for ITB misses).
  bool may_miss_in_instruction_fetch(BlockId b, size_t i, uint64_t unit) const {
    if (unit == 0) return false;
    const uint64_t address = insn(b, i).address;
    if (i > 0) return address % unit == 0;
    if (unknown_predecessors(b)) return true;
    for (BlockId p : frequent_predecessors(b)) {
      const uint64_t last = cfg_.block(p).instructions.back().address;
      if (last / unit != address / unit) return true;
    }
    return false;
  }

  // Causes that belong to the work an instruction does. A unop (ldq_u to
  // R31) is, by the Alpha Architecture Handbook, a universal NOP that never
  // accesses memory or traps: it waits for no operand, so it can miss
  // neither the DTB nor the D-cache nor fill the write buffer. Padding can
  // still wait for its fetch (I-cache, ITB) or a mispredict before it.
  static bool needs_work(StallCause cause) {
    return cause != StallCause::kICacheMiss && cause != StallCause::kItbMiss &&
           cause != StallCause::kBranchMispredict && cause != StallCause::kPalcode;
  }

  // Appends the candidates of `cause` for instruction i of block b to `out`.
  void possible(StallCause cause, BlockId b, size_t i, std::vector<CulpritCandidate>& out) const {
    const InstructionRecord& me = insn(b, i);
    if (me.no_op && needs_work(cause)) return;
    switch (cause) {
      case StallCause::kICacheMiss:
        // Fetch also restarts where PALcode returns (hw_rei), mid-line or
        // not, after PALcode and the kernel may have evicted the line. Not
        // the ITB: the CALL_PAL was just fetched through the same page's
        // entry, and PALcode and the kernel (KSEG) fetch without the ITB.
        if ((may_miss_in_instruction_fetch(b, i, model_.icache_line_bytes()) ||
             palcode_call(b, i)) &&
            may_miss_again_in_loop(b))
          return out.push_back({cause});
        return;
      case StallCause::kItbMiss:
        if (model_.superpage().contains(me.address)) return;  // fetched without the ITB
        if (may_miss_in_instruction_fetch(b, i, model_.page_bytes())) return out.push_back({cause});
        return;
      case StallCause::kBranchMispredict: {
        if (i != 0) return;
        if (unknown_predecessors(b)) return out.push_back({cause});
        for (BlockId p : frequent_predecessors(b)) {
          const ControlFlow flow = cfg_.block(p).instructions.back().control_flow;
          if (flow == ControlFlow::kIndirectJump || flow == ControlFlow::kReturn)
            return out.push_back({cause});
          if (flow == ControlFlow::kConditionalBranch && may_mispredict_into(p, b))
            return out.push_back({cause});
        }
        return;
      }
      case StallCause::kDCacheMiss:
        return loads_feeding(b, i, out);
      case StallCause::kDtbMiss:
        if (isa::ev5_is_memory_access(me.ev5_class) && !address_accessed_before(b, i) &&
            !superpage_access(b, i))
          return out.push_back({cause});
        return;
      case StallCause::kWriteBufferOverflow:
        if (isa::ev5_is_store(me.ev5_class)) return out.push_back({cause});
        return;
      case StallCause::kMultiplierBusy:
        if (isa::ev5_is_multiply(me.ev5_class) &&
            earlier_in_block_or_predecessors(b, i, isa::ev5_is_multiply))
          return out.push_back({cause});
        return;
      case StallCause::kFpDividerBusy:
        if (isa::ev5_uses_divider(me.ev5_class) &&
            earlier_in_block_or_predecessors(b, i, isa::ev5_uses_divider))
          return out.push_back({cause});
        return;
      case StallCause::kReplay:
        return stores_replaying(b, i, out);
      case StallCause::kPalcode:
        if (const auto call = palcode_call(b, i)) out.push_back({cause, *call});
        return;
      case StallCause::kSlotting:  // not §6.3 candidates (isa::is_dynamic)
      case StallCause::kDependency:
      case StallCause::kOther:
      case StallCause::kMultiplyWritebackE0:
        return;
    }
  }

  // The loops of the CFG: its strongly connected components with a cycle
  // (several blocks, or one with an edge to itself), each block's loop the
  // component that holds it. One Tarjan pass per procedure: a reachability
  // search per stalled block outside any loop was quadratic (issue 31).
  static constexpr size_t kNoLoop = ~size_t{0};
  size_t loop_of(BlockId b) const {
    if (loop_of_block_.empty()) find_loops();
    return loop_of_block_[b];
  }

  void find_loops() const {
    const size_t n = cfg_.blocks().size();
    constexpr size_t kUnvisited = ~size_t{0};
    std::vector<size_t> index(n, kUnvisited), low(n, 0), component(n, 0);
    std::vector<bool> on_stack(n, false);
    std::vector<BlockId> stack;
    std::vector<std::pair<BlockId, size_t>> path;  // (block, next outgoing edge)
    size_t next_index = 0, components = 0;
    for (BlockId root = 0; root < n; ++root) {
      if (index[root] != kUnvisited) continue;
      path.push_back({root, 0});
      index[root] = low[root] = next_index++;
      stack.push_back(root), on_stack[root] = true;
      while (!path.empty()) {
        auto& [x, next] = path.back();
        const std::span<const EdgeId> outgoing = cfg_.block(x).outgoing;
        if (next < outgoing.size()) {
          const BlockId y = cfg_.edge(outgoing[next++]).to;
          if (index[y] == kUnvisited) {
            index[y] = low[y] = next_index++;
            stack.push_back(y), on_stack[y] = true;
            path.push_back({y, 0});
          } else if (on_stack[y]) {
            low[x] = std::min(low[x], index[y]);
          }
          continue;
        }
        const BlockId done = x;
        path.pop_back();
        if (!path.empty()) low[path.back().first] = std::min(low[path.back().first], low[done]);
        if (low[done] != index[done]) continue;
        for (BlockId y = kUnvisited; y != done;) {
          y = stack.back();
          stack.pop_back(), on_stack[y] = false;
          component[y] = components;
        }
        ++components;
      }
    }
    // A single block is a loop only with an edge to itself. Loops are
    // numbered in component order, their members listed in ascending block
    // order; the many components that are no loop get no list (issue 31).
    std::vector<size_t> size(components, 0);
    for (BlockId x = 0; x < n; ++x) ++size[component[x]];
    std::vector<bool> cyclic(components, false);
    for (size_t c = 0; c < components; ++c) cyclic[c] = size[c] > 1;
    for (const CfgEdge& e : cfg_.edges())
      if (e.from == e.to) cyclic[component[e.from]] = true;
    std::vector<size_t> loop_of_component(components, kNoLoop);
    for (size_t c = 0; c < components; ++c) {
      if (!cyclic[c]) continue;
      loop_of_component[c] = loops_.size();
      loops_.emplace_back().blocks.reserve(size[c]);
    }
    loop_of_block_.assign(n, kNoLoop);
    for (BlockId x = 0; x < n; ++x) {
      const size_t loop = loop_of_component[component[x]];
      if (loop == kNoLoop) continue;
      loop_of_block_[x] = loop;
      loops_[loop].blocks.push_back(x);
    }
  }

  // §6.3's I-cache rule looks one instruction back; a loop looks further.
  // A loop whose code, with the code its calls may run (options_.
  // call_footprint: bytecode's dispatch loop calls __divq and __remq), maps
  // each line to a set of its own in the direct-mapped I-cache (21164 HRM
  // §2.8: 8 KB) keeps its lines once fetched: each misses at most once per
  // entry into the loop (interrupts aside, as in §6.3's footnote 8). Where
  // that bound, a fill from memory per entry, is under
  // min_significant_stall cycles per execution of b, an I-cache miss is
  // "extremely unlikely". Unknown edges, frequencies or callees, and
  // CALL_PAL, rule nothing out.
  bool may_miss_again_in_loop(BlockId b) const {
    const uint32_t cache_bytes = model_.icache_direct_mapped_bytes();
    const std::optional<double> frequency = analysis_.block_frequency(b);
    if (cache_bytes == 0 || !frequency || *frequency <= 0 || cfg_.missing_edges()) return true;
    const size_t loop = loop_of(b);
    if (loop == kNoLoop) return true;
    const std::optional<double> entries = entries_keeping_lines(loop, cache_bytes);
    if (!entries) return true;
    const double bound = model_.worst_event_cycles(StallCause::kICacheMiss) * *entries / *frequency;
    return bound >= options_.min_significant_stall;
  }

  // How often the loop is entered, when its code and its calls' keep their
  // I-cache lines; nothing when they may not (or it cannot tell). The same
  // for every block of the loop: worked out on the first (issue 31: the
  // callees' footprints were looked up again for every stalled block).
  std::optional<double> entries_keeping_lines(size_t loop, uint32_t cache_bytes) const {
    auto& found = loops_[loop].entries_keeping_lines;
    if (!found) found = find_entries_keeping_lines(loops_[loop].blocks, loop, cache_bytes);
    return *found;
  }

  std::optional<double> find_entries_keeping_lines(const std::vector<BlockId>& blocks, size_t id,
                                                   uint32_t cache_bytes) const {
    std::vector<CodeRange> code;
    double entries = 0;
    for (BlockId x : blocks) {
      const BasicBlock& block = cfg_.block(x);
      if (virtual_predecessor_[x]) return std::nullopt;
      code.push_back({block.start, block.end});
      for (const InstructionRecord& in : block.instructions) {
        if (in.kind == isa::Kind::kCallPal) return std::nullopt;
        if (in.control_flow != ControlFlow::kCall) continue;
        if (!in.branch_target || !options_.call_footprint) return std::nullopt;
        const auto callee = options_.call_footprint(*in.branch_target, cache_bytes);
        if (!callee) return std::nullopt;  // the callee's code may take the loop's sets
        code.insert(code.end(), callee->begin(), callee->end());
      }
      for (EdgeId e : block.incoming) {
        if (loop_of_block_[cfg_.edge(e).from] == id) continue;
        const std::optional<double> f = analysis_.edge_frequency(e);
        if (!f) return std::nullopt;
        entries += *f;
      }
    }
    if (lines_share_a_set(code, cache_bytes, model_.icache_line_bytes())) return std::nullopt;
    return entries;
  }

  // Whether two different lines of `code` map to the same set of a
  // direct-mapped cache of `cache_bytes` with `line_bytes` lines.
  static bool lines_share_a_set(const std::vector<CodeRange>& code, uint64_t cache_bytes,
                                uint64_t line_bytes) {
    if (line_bytes == 0) return true;
    std::map<uint64_t, uint64_t> line_of_set;
    for (const CodeRange& range : code) {
      for (uint64_t line = range.start / line_bytes; line * line_bytes < range.end; ++line) {
        const auto [at, added] = line_of_set.emplace(line % (cache_bytes / line_bytes), line);
        if (!added && at->second != line) return true;
      }
    }
    return false;
  }

  // The 21164 predicts a conditional branch with a 2-bit saturating counter
  // (21164 HRM §2.2.4). A counter on the side of the branch's frequent
  // direction predicts it wrongly only after the rare direction has moved
  // it across the middle, so the frequent direction is mispredicted at most
  // about once per execution of the rare one (plus the counter's first use,
  // and another branch sharing the counter, which we ignore as §6.3's
  // I-cache rule ignores displacement by a unified cache). Where that bound
  // is below min_significant_stall cycles per execution of the block the
  // edge leads to, a mispredict along it is "extremely unlikely" (§6.3).
  // Frequencies from the estimate (§6.2); unknown ones rule nothing out.
  bool may_mispredict_into(BlockId branch_block, BlockId b) const {
    std::optional<double> into, other;
    for (EdgeId e : cfg_.block(branch_block).outgoing) {
      const std::optional<double> f = analysis_.edge_frequency(e);
      if (!f) return true;
      (cfg_.edge(e).to == b ? into : other) = f;
    }
    const std::optional<double> frequency = analysis_.block_frequency(b);
    if (!into || !other || !frequency || *frequency <= 0) return true;
    if (*other >= *into) return true;  // the rare direction itself
    const double bound =
        model_.worst_event_cycles(StallCause::kBranchMispredict) * *other / *frequency;
    return bound >= options_.min_significant_stall;
  }

  // An instruction waits on a D-cache miss through an operand loaded by an
  // earlier load; an operand produced before the block may come from a load.
  void loads_feeding(BlockId b, size_t i, std::vector<CulpritCandidate>& result) const {
    const InstructionRecord& me = insn(b, i);
    for (const auto& source : {me.source_a, me.source_b, me.source_c}) {
      if (!source || source->reg.is_zero()) continue;
      std::optional<size_t> producer;
      for (size_t k = i; k-- > 0;) {
        if (insn(b, k).destination == source->reg) {
          producer = k;
          break;
        }
      }
      if (!producer) {
        if (is_stack_pointer(source->reg)) continue;
        // A register-only instruction whose operand comes from outside the
        // block stalls on a D-cache miss only through a load we can name;
        // an anonymous "d" on an addq (issue 17) explains nothing.
        for (const std::optional<uint64_t>& load : loads_arriving(b, source->reg))
          if (load || isa::ev5_is_memory_access(me.ev5_class))
            result.push_back({StallCause::kDCacheMiss, load});
      } else if (isa::ev5_is_load(insn(b, *producer).ev5_class)) {
        result.push_back({StallCause::kDCacheMiss, insn(b, *producer).address});
      }
    }
    if (result.size() > 1) {  // one candidate per load is enough
      std::sort(result.begin(), result.end(),
                [](const auto& x, const auto& y) { return x.instruction < y.instruction; });
      result.erase(
          std::unique(result.begin(), result.end(),
                      [](const auto& x, const auto& y) { return x.instruction == y.instruction; }),
          result.end());
    }
  }

  // An access to the address an earlier access of its block used (the same
  // base register, unchanged in between, and displacement) finds the
  // translation that access put in the DTB: it cannot miss the DTB (the
  // 64-entry DTB is not flushed between them, interrupts aside as in §6.3's
  // footnote 8). Where the 21164 replays such a load after a store, its
  // stall was listed as a DTB miss before this rule.
  bool address_accessed_before(BlockId b, size_t i) const {
    const std::optional<AddressOperand> me = address_operand(insn(b, i));
    if (!me) return false;
    for (size_t k = i; k-- > 0;) {
      const InstructionRecord& earlier = insn(b, k);
      if (isa::ev5_is_memory_access(earlier.ev5_class) && !earlier.no_op &&
          address_operand(earlier) == me)
        return true;
      if (writes_integer_register(earlier, me->base)) return false;
    }
    return false;
  }

  // An access to the superpage (kernel code's stack, globals and memory)
  // goes without the DTB (superpage_addresses.h). Worked out once per
  // procedure, when its first DTB candidate is looked at; none in code
  // outside the superpage (issue 31: a vector of false per block was most of
  // the culprits' allocations in user code).
  bool superpage_access(BlockId b, size_t i) const {
    if (!superpage_)
      superpage_ = runs_in_superpage(cfg_, model_.superpage())
                       ? superpage_accesses(cfg_, model_.superpage())
                       : std::vector<std::vector<bool>>{};
    return !superpage_->empty() && (*superpage_)[b][i];
  }

  static bool writes_integer_register(const InstructionRecord& in, uint8_t number) {
    return in.destination && !in.destination->floating && in.destination->number == number;
  }

  // The 21164's load-after-store hazard (21164PC HRM p. 2-33): a load issued
  // one cycle after a store to the same address replay traps, two cycles
  // after it waits one. The address is the same when the load names the
  // store's base register, unchanged in between, and displacement; the
  // hazard needs the store to be the last one before the load and close to
  // it in the schedule (kReplayWindow issue cycles). Loads from a store in
  // another block (a predecessor's tail) are not looked for.
  void stores_replaying(BlockId b, size_t i, std::vector<CulpritCandidate>& out) const {
    const InstructionRecord& load = insn(b, i);
    const std::optional<AddressOperand> me = address_operand(load);
    if (!isa::ev5_is_load(load.ev5_class) || !me) return;
    const auto& schedule = analysis_.schedules[b].instructions;
    for (size_t k = i; k-- > 0;) {
      const InstructionRecord& earlier = insn(b, k);
      if (schedule[i].issue_cycle - schedule[k].issue_cycle > kReplayWindow) return;
      if (isa::ev5_is_store(earlier.ev5_class)) {
        if (address_operand(earlier) == me) out.push_back({StallCause::kReplay, earlier.address});
        return;  // the last store is another address
      }
      if (writes_integer_register(earlier, me->base)) return;  // the base register changed
    }
  }

  // The stack pointer ($30) changes only by its frame's arithmetic (lda,
  // addq, subq on itself: the Alpha calling standard's fixed- and
  // variable-size frames), never by a load outside longjmp and context
  // switches; a stack access arriving with sp from outside its block does
  // not wait for a D-cache miss through it.
  static bool is_stack_pointer(const Register& reg) { return !reg.floating && reg.number == 30; }

  // The loads that may have written a register live into block b, looking
  // up to `depth` blocks back along the frequent predecessors: a load's
  // address, or nothing where the writer is out of sight (unknown
  // predecessors, or not written within `depth` blocks). A register every
  // path writes without a load (an interpreter's bytecode pointer, advanced
  // by an add in each handler and kept through the dispatch block) arrives
  // with no D-cache miss to wait for.
  // The answer is in a scratch vector, valid until the next question
  // (issue 31: a vector per question, grown one load at a time).
  const std::vector<std::optional<uint64_t>>& loads_arriving(BlockId b, Register reg) const {
    std::vector<std::optional<uint64_t>>& result = arriving_;
    result.clear();
    if (searched_depth_.empty()) searched_depth_.assign(cfg_.blocks().size(), 0);
    add_loads_arriving(b, reg, kLiveInDepth, result);
    for (BlockId x : searched_) searched_depth_[x] = 0;  // ready for the next search
    searched_.clear();
    return result;
  }
  void add_loads_arriving(BlockId b, Register reg, int depth,
                          std::vector<std::optional<uint64_t>>& result) const {
    // The deepest search from each block so far (0: none; depth >= 1).
    if (searched_depth_[b] >= depth) return;  // its writers are in the result already
    if (searched_depth_[b] == 0) searched_.push_back(b);
    searched_depth_[b] = depth;
    if (unknown_predecessors(b)) result.push_back(std::nullopt);
    for (BlockId p : frequent_predecessors(b)) {
      const std::optional<LastWriter> writer = last_writer(p, reg);
      if (!writer) {
        result.push_back(std::nullopt);  // a call that may change it
      } else if (writer->instruction) {
        // A load beyond the block before is named no culprit (as before
        // the deeper search): the search only proves that none wrote it.
        if (isa::ev5_is_load(writer->instruction->ev5_class))
          result.push_back(depth == kLiveInDepth ? std::optional(writer->instruction->address)
                                                 : std::nullopt);
      } else if (depth <= 1) {
        result.push_back(std::nullopt);
      } else {
        add_loads_arriving(p, reg, depth - 1, result);
      }
    }
  }

  // The last instruction of block p that writes reg (none: p leaves it as
  // it came), or nothing where a call in p after that may change it (the
  // callee's registers: options_.call_clobbers, every caller-saved one
  // without it).
  struct LastWriter {
    const InstructionRecord* instruction = nullptr;
  };
  std::optional<LastWriter> last_writer(BlockId p, Register reg) const {
    const auto& code = cfg_.block(p).instructions;
    for (auto x = code.rbegin(); x != code.rend(); ++x) {
      if (x->destination == reg) return LastWriter{&*x};
      if (x->control_flow != ControlFlow::kCall || reg.floating) continue;
      const bool may_change =
          !options_.call_clobbers || (options_.call_clobbers(*x) >> reg.number) & 1;
      if (may_change) return std::nullopt;
    }
    return LastWriter{};
  }

  // A unit (multiplier, divider) the instruction needs may still be busy
  // from an earlier user in its block or in the blocks before it, up to
  // `depth` blocks back; a call among them stands for its callee, which may
  // have used the unit just before returning (a multiply in llround keeps
  // the multiplier busy for its caller's next mulq). Unknown predecessors
  // count only for the instruction's own block, as before.
  template <typename Predicate>
  bool earlier_in_block_or_predecessors(BlockId b, size_t i, Predicate is_kind, int depth = 2,
                                        bool own_block = true) const {
    for (size_t k = 0; k < i; ++k)
      if (is_kind(insn(b, k).ev5_class) || insn(b, k).control_flow == ControlFlow::kCall)
        return true;
    if (depth == 0) return false;
    if (own_block && unknown_predecessors(b)) return true;
    for (BlockId p : frequent_predecessors(b))
      if (earlier_in_block_or_predecessors(p, cfg_.block(p).instructions.size(), is_kind, depth - 1,
                                           false))
        return true;
    return false;
  }

  // DCPI §6.3 with event samples: a candidate whose event has samples where
  // the machine charges it is confirmed, with an upper bound (those events,
  // each at the worst cost, per execution of the stalled instruction); one
  // with none there, where explaining min_stall_cycles per execution would
  // have given significant_samples, is ruled out (false). A bound below the
  // stall still explains part of it, so it stays. Without its event's
  // samples a candidate stays unbounded.
  bool weigh(CulpritCandidate& candidate, BlockId b, size_t i) const {
    const auto evidence = options_.events.find(candidate.cause);
    if (evidence == options_.events.end() || evidence->second.events_per_sample <= 0 ||
        options_.cycles_period <= 0)
      return true;
    // An anonymous D-cache candidate's load is out of sight: no evidence.
    const std::optional<uint64_t> at =
        event_at_culprit(candidate.cause) ? candidate.instruction : insn(b, i).address;
    const std::optional<double> frequency = analysis_.block_frequency(b);
    if (!at || !frequency || *frequency <= 0) return true;
    const double executions = *frequency * options_.cycles_period;
    const double cost = model_.worst_event_cycles(candidate.cause);
    const double per_sample = evidence->second.events_per_sample;
    const auto found = evidence->second.samples.find(*at);
    const double samples = found == evidence->second.samples.end() ? 0.0 : found->second;
    candidate.event_samples = samples;
    if (samples > 0) {
      candidate.upper_bound_cycles = samples * per_sample * cost / executions;
      return true;
    }
    candidate.expected_samples = options_.min_stall_cycles * executions / cost / per_sample;
    return candidate.expected_samples < options_.significant_samples;
  }

  const ProcedureAnalysis& analysis_;
  const ProcessorModel& model_;
  const CulpritOptions& options_;
  const ControlFlowGraph& cfg_;
  std::vector<bool> virtual_predecessor_;           // per block: entered from outside the CFG
  mutable std::vector<BlockId> predecessors_;       // frequent_predecessors', block by block
  mutable std::vector<size_t> predecessors_first_;  // per block, and one past the last
  struct Loop {
    std::vector<BlockId> blocks;                                 // ascending
    std::optional<std::optional<double>> entries_keeping_lines;  // once worked out
  };
  mutable std::vector<Loop> loops_;
  mutable std::vector<size_t> loop_of_block_;              // index in loops_, or kNoLoop
  mutable std::vector<int> searched_depth_;                // add_loads_arriving's, per block
  mutable std::vector<BlockId> searched_;                  // the blocks it set
  mutable std::vector<std::optional<uint64_t>> arriving_;  // loads_arriving's answer
  mutable std::vector<CulpritCandidate> possible_, kept_, ruled_out_;  // candidates()'s scratch
  mutable std::optional<std::vector<std::vector<bool>>> superpage_;    // superpage_access's
};

// A stall worth listing: large, or small but far beyond sampling noise.
bool worth_listing(double stall, double head_cycles, double frequency,
                   const CulpritOptions& options) {
  if (stall >= options.min_stall_cycles) return true;
  if (options.significant_stall_sigmas <= 0) return false;
  const double floor = options.min_significant_stall * std::max(1.0, head_cycles);
  const double expected = frequency * std::max(1.0, head_cycles);
  return stall >= floor &&
         stall * frequency >= options.significant_stall_sigmas * std::sqrt(expected);
}

}  // namespace

CulpritReport find_culprits(const ProcedureAnalysis& analysis, const ProcessorModel& model,
                            const CulpritOptions& options) {
  CulpritReport report;
  report.machine_has_dynamic_stalls = model.has_dynamic_stalls();
  if (!report.machine_has_dynamic_stalls) {
    report.note = std::string(model.name()) +
                  " has no dynamic stalls: every instruction takes its static cycles, and "
                  "samples above that are sampling noise, not stalls";
    return report;
  }
  const CulpritFinder finder(analysis, model, options);
  for (BlockId b = 0; b < analysis.cfg.blocks().size(); ++b) {
    for (size_t i = 0; i < analysis.cfg.block(b).instructions.size(); ++i) {
      const std::optional<double> cycles = analysis.cycles_per_execution(b, i);
      if (!cycles) continue;
      const double head = analysis.schedules[b].instructions[i].head_cycles;
      const double stall = *cycles - head;
      if (!worth_listing(stall, head, *analysis.block_frequency(b), options)) continue;
      DynamicStall& found = report.stalls.emplace_back(
          DynamicStall{.block = b,
                       .instruction = i,
                       .address = analysis.cfg.block(b).instructions[i].address,
                       .cycles = stall});
      finder.candidates(b, i, found);
    }
  }
  return report;
}

}  // namespace dcpi::calc
