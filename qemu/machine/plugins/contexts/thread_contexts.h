// The exact calling context tree of one thread, built from the instruction
// stream the machine executes (seed 002 §3: the CCT). No QEMU here: the
// plugin (plugin.cpp) feeds it, the unit tests (tests/unit/contexts/) feed it
// synthetic streams.
//
// Calls (bsr/jsr with a link register) push a frame that remembers the
// caller's stack pointer; returns pop the frames whose stack pointer the
// return has left behind. Matching by stack pointer rather than by return
// address is what keeps the tree right when control leaves frames without
// returning through them (longjmp, C++ unwinding): their frames are popped
// as soon as a return or a call happens at a shallower stack.
#pragma once
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "firmware/contexts_format.h"

namespace dcpi::contexts {

struct Node {
  uint32_t parent = DCPI_CONTEXTS_NO_PARENT;
  uint16_t kind = DCPI_CONTEXT_ROOT;
  uint64_t address = 0;    // procedure entry
  uint64_t call_site = 0;  // the call that created the node
  uint64_t calls = 0;
  uint64_t instructions = 0;  // exclusive
  uint64_t cycles = 0;        // exclusive
  // The ev5 model's events, exclusive (firmware/contexts_format.h version 2).
  uint64_t dcache_misses = 0, icache_misses = 0, dtb_misses = 0, mispredicts = 0;
  uint32_t kernel_child = DCPI_CONTEXTS_NO_PARENT;  // its DCPI_CONTEXT_KERNEL child, if any
};

class ThreadContexts {
 public:
  ThreadContexts();

  // A user-mode call instruction at `site` is about to execute with the
  // stack pointer `sp`; the callee is the next user PC (resolved there).
  void call(uint64_t site, uint64_t sp);
  // A user-mode ret is about to execute with `sp`; returns to the next user PC.
  void ret(uint64_t sp);
  // jsr_coroutine: a return to the next user PC that also calls it.
  void coroutine(uint64_t site, uint64_t sp);
  // A `br` to another procedure's entry (the plugin checked the target) is
  // about to execute with `sp`: when the current procedure has freed its
  // frame (sp is the one it was called at), it is a tail call, and the
  // target's activation takes the frame's place, as on the machine's stack,
  // which is all an unwinder (a sampled chain, gdb's backtrace) sees: the
  // context becomes the target's, called from the caller's record at the
  // same call site (issue 28: xz's lz_decode → decode_buffer). The frame
  // keeps its activation number, so a path profile goes on as before.
  void tail_jump(uint64_t sp);
  // Whether sp is the one the current procedure was called at (a jump
  // there may be a tail call; the plugin reads the target's code only then).
  bool at_frame_sp(uint64_t sp) const { return !frames_.empty() && frames_.back().sp == sp; }

  // One instruction executed: a user one at `pc`, or a kernel or PALcode one
  // (charged to the kernel child of the current user context).
  void user_instruction(uint64_t pc, uint64_t cycles);
  void kernel_instruction(uint64_t cycles);

  // For a model that books its metrics itself (the ev5 plugin,
  // ev5/context_metrics.h): the first user instruction of a block, which
  // resolves a pending call or return without counting anything, and the
  // node whose exclusive metrics a booking for a user (or kernel or
  // PALcode) instruction goes to now.
  void user_block(uint64_t pc) {
    if (pending_ != Pending::kNone) resolve(pc);
  }
  Node& booked(bool user) { return nodes_[user ? current() : kernel_node(current())]; }
  // The live activations, outermost first, each by a number no other
  // activation of the thread had (0: the root), and the current one's
  // procedure: what the path profile follows (thread_paths.h).
  void frame_serials(std::vector<uint64_t>& out) const {
    out.assign(1, 0);
    for (const Frame& frame : frames_) out.push_back(frame.serial);
  }
  uint64_t current_procedure() const { return nodes_[current()].address; }
  uint64_t top_serial() const { return frames_.empty() ? 0 : frames_.back().serial; }

  const std::vector<Node>& nodes() const { return nodes_; }
  std::size_t depth() const { return frames_.size(); }

 private:
  struct Frame {
    uint32_t node;
    uint64_t sp;              // the caller's stack pointer at the call
    uint64_t return_address;  // the call's address + 4
    uint64_t serial;          // this activation's number (frame_serials)
  };
  enum class Pending : uint8_t { kNone, kCall, kReturn, kCoroutine, kTailJump };

  uint32_t current() const { return frames_.empty() ? 0 : frames_.back().node; }
  void resolve(uint64_t pc);
  void enter(uint64_t site, uint64_t sp, uint64_t callee);
  void leave(uint64_t sp, uint64_t target);
  void pop_dead_frames(uint64_t sp);
  uint32_t callee_node(uint32_t caller, uint64_t site, uint64_t callee);
  uint32_t kernel_node(uint32_t parent);

  std::vector<Node> nodes_;
  std::vector<Frame> frames_;
  // (caller's record, call site, callee) → node: one record per procedure
  // per call path and call site (seed 002 §3.1's call-site slots), or the
  // ancestor a recursive call folds onto (§3.2's back edges).
  struct Key {
    uint32_t parent;
    uint64_t site, callee;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return (k.site * 0x9e3779b97f4a7c15ull) ^ (k.callee * 0xc2b2ae3d27d4eb4full) ^ k.parent;
    }
  };
  std::unordered_map<Key, uint32_t, KeyHash> children_;
  uint64_t next_serial_ = 1;
  Pending pending_ = Pending::kNone;
  uint64_t pending_site_ = 0;
  uint64_t pending_sp_ = 0;
};

}  // namespace dcpi::contexts
