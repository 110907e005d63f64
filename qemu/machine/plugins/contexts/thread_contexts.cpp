#include "qemu/machine/plugins/contexts/thread_contexts.h"

namespace dcpi::contexts {

ThreadContexts::ThreadContexts() { nodes_.push_back(Node{}); }  // node 0: the root

void ThreadContexts::call(uint64_t site, uint64_t sp) {
  pending_ = Pending::kCall;
  pending_site_ = site;
  pending_sp_ = sp;
}

void ThreadContexts::ret(uint64_t sp) {
  pending_ = Pending::kReturn;
  pending_sp_ = sp;
}

void ThreadContexts::coroutine(uint64_t site, uint64_t sp) {
  pending_ = Pending::kCoroutine;
  pending_site_ = site;
  pending_sp_ = sp;
}

void ThreadContexts::tail_jump(uint64_t sp) {
  if (!at_frame_sp(sp)) return;  // a jump inside a procedure
  pending_ = Pending::kTailJump;
  pending_sp_ = sp;
}

void ThreadContexts::user_instruction(uint64_t pc, uint64_t cycles) {
  if (pending_ != Pending::kNone) resolve(pc);
  Node& node = nodes_[current()];
  ++node.instructions;
  node.cycles += cycles;
}

void ThreadContexts::kernel_instruction(uint64_t cycles) {
  Node& node = nodes_[kernel_node(current())];
  ++node.instructions;
  node.cycles += cycles;
}

// The transfer's target is the first user PC after it: kernel code in between
// (an interrupt before the callee's first instruction) does not count.
void ThreadContexts::resolve(uint64_t pc) {
  const Pending pending = pending_;
  pending_ = Pending::kNone;
  if (pending == Pending::kReturn || pending == Pending::kCoroutine) leave(pending_sp_, pc);
  if (pending == Pending::kCall || pending == Pending::kCoroutine)
    enter(pending_site_, pending_sp_, pc);
  if (pending == Pending::kTailJump && at_frame_sp(pending_sp_)) {
    Frame& frame = frames_.back();
    const uint32_t caller = frames_.size() > 1 ? frames_[frames_.size() - 2].node : 0;
    const uint32_t node = callee_node(caller, frame.return_address - 4, pc);
    if (node != frame.node) ++nodes_[node].calls;
    frame.node = node;
  }
}

void ThreadContexts::enter(uint64_t site, uint64_t sp, uint64_t callee) {
  // A procedure that calls has a frame of its own (it must save ra), so it
  // calls below the stack pointer it was called at: a frame called at this
  // stack pointer or above is dead, left by an unwinder or longjmp that
  // jumped rather than returned through it.
  while (!frames_.empty() && frames_.back().sp <= sp) frames_.pop_back();
  const uint32_t node = callee_node(current(), site, callee);
  ++nodes_[node].calls;
  frames_.push_back(Frame{node, sp, site + 4, next_serial_++});
}

// seed 002 §3: a return restores the caller's stack pointer, so it ends every
// frame called at a deeper one, and of the frames called at exactly this one
// (leaf procedures without a frame of their own), the one it returns into.
void ThreadContexts::leave(uint64_t sp, uint64_t target) {
  pop_dead_frames(sp);
  std::size_t match = frames_.size();
  for (std::size_t i = frames_.size(); i-- > 0 && frames_[i].sp == sp;)
    if (frames_[i].return_address == target) {
      match = i;
      break;
    }
  if (match < frames_.size()) {
    frames_.resize(match);
  } else if (!frames_.empty() && frames_.back().sp == sp) {
    frames_.pop_back();  // longjmp to a frame's own level: the innermost is left
  }
}

void ThreadContexts::pop_dead_frames(uint64_t sp) {
  while (!frames_.empty() && frames_.back().sp < sp) frames_.pop_back();
}

// seed 002 §3.2: a recursive call becomes a back edge to the ancestor's
// record, so the tree stays as deep as the distinct procedures on the path.
// The ancestors are the caller's record's tree ancestors ("look for a call
// record ... among CR's ancestors"), not every activation on the stack: after
// a fold, activations below the folded-onto record (main → pcall → precall →
// pmain → pcall, folded onto the first pcall) are not ancestors of the
// records called from there, so precall called again gets a new record. The
// stack rule folded it onto the first precall instead, a context no sampled
// chain folded as seed 002 does could name (issue 28: lua's luaD_precall).
// A record's ancestors never change, so the slot keeps the back edge.
uint32_t ThreadContexts::callee_node(uint32_t caller, uint64_t site, uint64_t callee) {
  const Key key{caller, site, callee};
  if (const auto slot = children_.find(key); slot != children_.end()) return slot->second;
  uint32_t node = DCPI_CONTEXTS_NO_PARENT;
  for (uint32_t n = caller; n != 0 && node == DCPI_CONTEXTS_NO_PARENT; n = nodes_[n].parent)
    if (nodes_[n].address == callee) node = n;
  if (node == DCPI_CONTEXTS_NO_PARENT) {
    node = static_cast<uint32_t>(nodes_.size());
    Node record;
    record.parent = caller;
    record.kind = DCPI_CONTEXT_CALL;
    record.address = callee;
    record.call_site = site;
    nodes_.push_back(record);
  }
  children_.emplace(key, node);
  return node;
}

uint32_t ThreadContexts::kernel_node(uint32_t parent) {
  if (nodes_[parent].kernel_child == DCPI_CONTEXTS_NO_PARENT) {
    Node node;
    node.parent = parent;
    node.kind = DCPI_CONTEXT_KERNEL;
    nodes_[parent].kernel_child = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back(node);
  }
  return nodes_[parent].kernel_child;
}

}  // namespace dcpi::contexts
