// The calling context tree builder of the contexts plugin, on instruction
// streams whose call structure is known by construction (seed 002 §3).
#include "qemu/machine/plugins/contexts/thread_contexts.h"

#include <gtest/gtest.h>

#include "qemu/machine/plugins/contexts/thread_table.h"
#include "qemu/machine/plugins/contexts/transfer_kind.h"

namespace dcpi::contexts {
namespace {

constexpr uint64_t kMain = 0x1000, kF = 0x2000, kG = 0x3000, kH = 0x4000;

// A tiny program driver: `run(pc, n)` executes n instructions from pc.
struct Stream {
  ThreadContexts tree;
  void run(uint64_t pc, int n) {
    for (int i = 0; i < n; ++i) tree.user_instruction(pc + 4 * i, 1);
  }
  // The call instruction at `site` (executed), then the callee's first one.
  void call(uint64_t site, uint64_t sp, uint64_t callee) {
    tree.user_instruction(site, 1);
    tree.call(site, sp);
    tree.user_instruction(callee, 1);
  }
  void ret(uint64_t at, uint64_t sp, uint64_t target) {
    tree.user_instruction(at, 1);
    tree.ret(sp);
    tree.user_instruction(target, 1);
  }
  // The node for the path of callees from the root; NO_PARENT if none.
  uint32_t find(std::initializer_list<uint64_t> path) const {
    uint32_t at = 0;
    for (uint64_t callee : path) {
      uint32_t next = DCPI_CONTEXTS_NO_PARENT;
      for (uint32_t i = 0; i < tree.nodes().size(); ++i)
        if (tree.nodes()[i].parent == at && tree.nodes()[i].address == callee) next = i;
      if (next == DCPI_CONTEXTS_NO_PARENT) return next;
      at = next;
    }
    return at;
  }
  const Node& node(std::initializer_list<uint64_t> path) const {
    const uint32_t index = find(path);
    EXPECT_NE(index, DCPI_CONTEXTS_NO_PARENT);
    return tree.nodes().at(index);
  }
};

uint64_t total_instructions(const ThreadContexts& tree) {
  uint64_t sum = 0;
  for (const Node& node : tree.nodes()) sum += node.instructions;
  return sum;
}

TEST(ThreadContexts, CallsAndReturnsBuildOneNodePerPath) {
  Stream s;
  s.run(0x100, 3);               // _start: root
  s.call(0x10c, 1000, kMain);    // main, sp 1000 at the call
  for (int i = 0; i < 2; ++i) {  // main calls f twice from one site
    s.call(kMain + 8, 900, kF);  // (main's frame: sp 900)
    s.call(kF + 4, 800, kG);     // f calls g
    s.run(kG + 4, 10);
    s.ret(kG + 44, 800, kF + 8);      // g returns into f
    s.ret(kF + 12, 900, kMain + 12);  // f returns into main
  }
  s.ret(kMain + 16, 1000, 0x110);  // main returns into _start
  EXPECT_EQ(s.node({kMain}).calls, 1u);
  EXPECT_EQ(s.node({kMain, kF}).calls, 2u);
  EXPECT_EQ(s.node({kMain, kF, kG}).calls, 2u);
  EXPECT_EQ(s.node({kMain, kF}).call_site, kMain + 8);
  // g: its entry, 10 more and its ret, twice.
  EXPECT_EQ(s.node({kMain, kF, kG}).instructions, 2u * 12);
  EXPECT_EQ(s.tree.depth(), 0u);
  EXPECT_EQ(s.tree.nodes().size(), 4u);  // root, main, f, g
  EXPECT_EQ(total_instructions(s.tree), 3u + 2 + 2 * (2 + 2 + 12 + 2) + 2);
}

TEST(ThreadContexts, AFramelessLeafReturnsToItsCaller) {
  // f keeps its caller's stack pointer (no frame of its own): its frame and
  // the caller's call share sp 1000, and the return address says which ends.
  Stream s;
  s.call(0x100, 1100, kMain);
  s.call(kMain + 4, 1000, kF);
  s.ret(kF + 4, 1000, kMain + 8);
  EXPECT_EQ(s.tree.depth(), 1u);
  s.run(kMain + 12, 5);
  EXPECT_EQ(s.node({kMain}).instructions, 2u + 1 + 5);
  s.ret(kMain + 40, 1100, 0x104);
  EXPECT_EQ(s.tree.depth(), 0u);
}

TEST(ThreadContexts, RecursionFoldsOntoTheAncestor) {
  Stream s;
  s.call(0x100, 1000, kF);
  for (int depth = 0; depth < 5; ++depth) s.call(kF + 8, 900 - 100 * depth, kF);  // f → f
  s.call(kF + 12, 400, kG);              // the innermost f calls g
  s.call(kG + 4, 300, kF);               // g calls f again: mutual recursion, still f's node
  EXPECT_EQ(s.tree.nodes().size(), 3u);  // root, f, g: as deep as the distinct procedures
  EXPECT_EQ(s.node({kF}).calls, 7u);     // 1 + 5 + 1 through g
  EXPECT_EQ(s.node({kF, kG}).calls, 1u);
  EXPECT_EQ(s.tree.depth(), 8u);  // every activation keeps its frame
  for (uint64_t sp = 300; sp <= 1000; sp += 100) s.ret(kF + 40, sp, kF + 12);
  EXPECT_EQ(s.tree.depth(), 0u);
}

// lua's shape (issue 28): main → pcall → precall → pmain → pcall (folded onto
// the first pcall) → execute → precall. The second precall's caller record
// is pcall → execute, whose tree ancestors (main, pcall, execute) do not
// include precall, so seed 002 §3.2 gives it a record of its own; the first
// precall's activation is still on the stack, but it is not an ancestor.
TEST(ThreadContexts, RecursionFoldsOntoATreeAncestorNotAnyActivation) {
  constexpr uint64_t kPcall = kF, kPrecall = kG, kPmain = kH, kExecute = 0x5000, kSort = 0x6000;
  Stream s;
  s.call(0x100, 1000, kMain);
  s.call(kMain + 8, 900, kPcall);
  s.call(kPcall + 8, 800, kPrecall);
  s.call(kPrecall + 8, 700, kPmain);
  s.call(kPmain + 8, 600, kPcall);  // folds onto main → pcall
  s.call(kPcall + 8, 500, kExecute);
  s.call(kExecute + 8, 400, kPrecall);
  s.call(kPrecall + 8, 300, kSort);
  EXPECT_EQ(s.node({kMain, kPcall}).calls, 2u);
  EXPECT_EQ(s.node({kMain, kPcall, kPrecall}).calls, 1u);
  EXPECT_EQ(s.node({kMain, kPcall, kExecute, kPrecall}).calls, 1u);
  EXPECT_EQ(s.node({kMain, kPcall, kExecute, kPrecall, kSort}).calls, 1u);
  EXPECT_EQ(s.find({kMain, kPcall, kPrecall, kSort}), DCPI_CONTEXTS_NO_PARENT);
  // The same call again finds its slot's record, a back edge included.
  for (uint64_t sp = 300; sp <= 600; sp += 100) s.ret(0x7000, sp, kPmain + 12);  // back in pmain
  s.call(kPmain + 8, 600, kPcall);
  EXPECT_EQ(s.node({kMain, kPcall}).calls, 3u);
}

// xz's lz_decode ends in `br decode_buffer+8` having freed its frame (issue
// 28): decode_buffer's activation replaces lz_decode's, as on the stack an
// unwinder reads, so what decode_buffer calls is under block_decode →
// decode_buffer. A jump made with a frame still allocated (sp below the one
// the procedure was called at) is a jump inside the procedure.
TEST(ThreadContexts, ATailCallReplacesTheCallersActivation) {
  constexpr uint64_t kBlock = kF, kLz = kG, kBuffer = kH + 8, kLzma2 = 0x5000;
  Stream s;
  s.call(0x100, 1000, kBlock);
  s.call(kBlock + 8, 900, kLz);
  s.run(kLz, 3);  // its frame: sp 800, then freed
  s.tree.user_instruction(kLz + 12, 1);
  s.tree.tail_jump(800);  // frame still allocated: not a tail call
  s.tree.user_instruction(kLz + 40, 1);
  EXPECT_EQ(s.tree.nodes().size(), 3u);
  s.tree.user_instruction(kLz + 44, 1);
  s.tree.tail_jump(900);
  s.tree.user_instruction(kBuffer, 1);
  s.call(kBuffer + 8, 700, kLzma2);
  EXPECT_EQ(s.node({kBlock, kLz}).calls, 1u);
  EXPECT_EQ(s.node({kBlock, kBuffer}).calls, 1u);
  EXPECT_EQ(s.node({kBlock, kBuffer, kLzma2}).calls, 1u);
  EXPECT_EQ(s.node({kBlock, kBuffer}).instructions, 2u);  // the jump's target and the call
  EXPECT_EQ(s.find({kBlock, kLz, kLzma2}), DCPI_CONTEXTS_NO_PARENT);
  EXPECT_EQ(s.tree.depth(), 3u);
  // decode_buffer's return goes back to block_decode, as lz_decode's would.
  s.ret(0x7000, 700, kBuffer + 12);
  s.ret(0x7100, 900, kBlock + 12);
  EXPECT_EQ(s.tree.depth(), 1u);
}

// Only the code just past `ldah gp,X(t12); lda gp,Y(gp)` is a tail call's
// target (lz_decode's, from liblzma.so.5's own words).
TEST(TransferKind, ATailCallTargetFollowsTheGpSetUp) {
  constexpr uint32_t kLdahGpPv = 0x27bb0004;  // ldah gp,4(t12)
  constexpr uint32_t kLdaGpGp = 0x23bdb970;   // lda gp,-18064(gp)
  constexpr uint32_t kLdaSp = 0x23deff70;     // lda sp,-144(sp)
  EXPECT_TRUE(is_tail_call_target(kLdahGpPv, kLdaGpGp));
  EXPECT_FALSE(is_tail_call_target(kLdaGpGp, kLdaSp));
  EXPECT_FALSE(is_tail_call_target(kLdaSp, kLdaGpGp));
  constexpr uint32_t kBrDecodeBuffer = 0xc3fffedb;  // at 0x1c8c8: br decode_buffer+8 (0x1c438)
  EXPECT_EQ(transfer_kind(kBrDecodeBuffer, true), TransferKind::kJump);
  EXPECT_EQ(jump_target(0x1c8c8, kBrDecodeBuffer), 0x1c438u);
  EXPECT_EQ(transfer_kind(kBrDecodeBuffer, false), TransferKind::kPlain);  // kernel code
  EXPECT_EQ(transfer_kind(0xc3400004, true), TransferKind::kPlain);  // br ra,X: not a jump to $31
}

TEST(ThreadContexts, LongjmpPopsTheFramesItSkips) {
  // main (called at sp 1100, runs at 1000) calls setjmp and g; g calls h,
  // h calls longjmp, which "returns" from setjmp a second time: its ret
  // restores main's stack pointer and goes to setjmp's return address.
  Stream s;
  s.call(0x100, 1100, kMain);
  s.call(kMain + 4, 1000, 0x9000);  // setjmp
  s.ret(0x9010, 1000, kMain + 8);   // returns 0
  s.call(kMain + 12, 1000, kG);     // g
  s.call(kG + 4, 900, kH);          // h
  s.call(kH + 4, 800, 0x9100);      // longjmp
  EXPECT_EQ(s.tree.depth(), 4u);
  s.ret(0x9120, 1000, kMain + 8);  // back in main
  EXPECT_EQ(s.tree.depth(), 1u);
  s.run(kMain + 12, 3);
  EXPECT_EQ(s.node({kMain}).instructions, 8u);  // entry, 3 calls, the landing, 3 more
  s.ret(kMain + 40, 1100, 0x104);
  EXPECT_EQ(s.tree.depth(), 0u);
}

TEST(ThreadContexts, UnwindingWithoutReturnIsNoticedAtTheNextCall) {
  // An unwinder jumps (no ret) from h back into main's frame at sp 1000;
  // main's next call shows that g's and h's frames are gone.
  Stream s;
  s.call(0x100, 1100, kMain);
  s.call(kMain + 4, 1000, kG);
  s.call(kG + 4, 900, kH);
  s.run(kMain + 20, 2);  // the landing pad, reached by a jump
  s.call(kMain + 28, 1000, kF);
  EXPECT_NE(s.find({kMain, kF}), DCPI_CONTEXTS_NO_PARENT);
  EXPECT_EQ(s.find({kMain, kG, kH, kF}), DCPI_CONTEXTS_NO_PARENT);
  EXPECT_EQ(s.tree.depth(), 2u);
}

TEST(ThreadContexts, KernelTimeIsAChildOfTheCurrentContext) {
  Stream s;
  s.call(0x100, 1000, kF);
  for (int i = 0; i < 7; ++i) s.tree.kernel_instruction(3);  // a system call
  s.run(kF + 4, 2);
  const Node& f = s.node({kF});
  ASSERT_NE(f.kernel_child, DCPI_CONTEXTS_NO_PARENT);
  const Node& kernel = s.tree.nodes()[f.kernel_child];
  EXPECT_EQ(kernel.kind, DCPI_CONTEXT_KERNEL);
  EXPECT_EQ(kernel.instructions, 7u);
  EXPECT_EQ(kernel.cycles, 21u);
  EXPECT_EQ(f.instructions, 3u);
}

TEST(ThreadContexts, AnInterruptBetweenCallAndCalleeDoesNotMoveTheCall) {
  Stream s;
  s.tree.user_instruction(0x100, 1);
  s.tree.call(0x100, 1000);
  s.tree.kernel_instruction(1);  // the interrupt, charged before the callee runs
  s.tree.user_instruction(kF, 1);
  EXPECT_EQ(s.node({kF}).calls, 1u);
  EXPECT_EQ(s.tree.nodes()[s.tree.nodes()[0].kernel_child].instructions, 1u);
}

TEST(ThreadContexts, CoroutineReturnsAndCalls) {
  Stream s;
  s.call(0x100, 1000, kF);
  s.tree.user_instruction(kF + 4, 1);
  s.tree.coroutine(kF + 4, 1000);  // jsr_coroutine back into the caller, as a call
  s.tree.user_instruction(0x104, 1);
  EXPECT_EQ(s.tree.depth(), 1u);
  EXPECT_EQ(s.node({0x104}).calls, 1u);
}

// The ev5 model books its own metrics (ev5/context_metrics.h): a block head
// resolves the pending call without counting, and bookings go to the node
// current for their PC's mode.
TEST(ThreadContexts, AModelBooksToTheContextABlockHeadResolved) {
  ThreadContexts tree;
  tree.booked(true).instructions += 3;
  tree.call(0x108, 1000);
  tree.booked(true).cycles += 4;  // the call's own cycles: still the caller's
  tree.user_block(kF);
  tree.booked(true).dcache_misses += 2;
  tree.booked(false).cycles += 9;  // an interrupt in the callee
  tree.user_block(kF + 0x40);      // a block head with nothing pending: no new context
  tree.booked(true).mispredicts += 1;
  ASSERT_EQ(tree.nodes().size(), 3u);
  const Node& root = tree.nodes()[0];
  const Node& f = tree.nodes()[1];
  EXPECT_EQ(root.instructions, 3u);
  EXPECT_EQ(root.cycles, 4u);
  EXPECT_EQ(f.address, kF);
  EXPECT_EQ(f.calls, 1u);
  EXPECT_EQ(f.instructions, 0u);  // user_block counts nothing
  EXPECT_EQ(f.dcache_misses, 2u);
  EXPECT_EQ(f.mispredicts, 1u);
  EXPECT_EQ(tree.nodes()[f.kernel_child].cycles, 9u);
}

}  // namespace
// A page-table base names an address space only while it lives: the kernel
// frees it at exit and exec, and a later process may get the same page with
// other code at the same addresses (the paths' back edges are cached per
// space, procedure_loops.h).
TEST(ThreadTable, AReusedPageTableIsAnotherSpace) {
  ThreadTable table(1);
  table.switch_to(0, 7, 7, 0x1000, 0x8c0000);
  const uint64_t first = table.current(0)->space;
  table.switch_to(0, 8, 7, 0x2000, 0x8c0000);  // a thread of the same process
  EXPECT_EQ(table.current(0)->space, first);
  table.switch_to(0, 7, 7, 0x1000, 0x8c0000);
  EXPECT_EQ(table.current(0)->space, first);
  table.switch_to(0, 9, 9, 0x3000, 0x8c0000);  // another process on the freed page
  const uint64_t reused = table.current(0)->space;
  EXPECT_NE(reused, first);
  table.switch_to(0, 9, 9, 0x3000, 0x932000);  // it execs: a new table
  const uint64_t exec = table.current(0)->space;
  EXPECT_NE(exec, reused);
  EXPECT_NE(exec, first);
  table.switch_to(0, 9, 9, 0x3000, 0x8c0000);  // and execs again onto the first page
  EXPECT_NE(table.current(0)->space, reused);
}

}  // namespace dcpi::contexts
