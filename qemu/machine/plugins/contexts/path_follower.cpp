#include "qemu/machine/plugins/contexts/path_follower.h"

namespace dcpi::contexts {

void PathFollower::block_head(unsigned int vcpu, ContextThread& thread, uint64_t pc,
                              uint64_t last) {
  if (vcpu >= followed_.size()) return;
  Followed& f = followed_[vcpu];
  if (f.thread != &thread || f.depth != thread.tree.depth() ||
      f.serial != thread.tree.top_serial()) {
    thread.tree.frame_serials(f.frames);
    thread.paths.sync(f.frames, thread.tree.current_procedure(), pc);
    f.thread = &thread;
    f.depth = thread.tree.depth();
    f.serial = thread.tree.top_serial();
  }
  thread.paths.block(pc, last, [&](uint64_t entry, uint64_t from, uint64_t to) {
    return loops_.ends_path(thread.space, entry, from, to);
  });
  if (last > pc)
    thread.paths.cut_inside(
        pc, loops_.fall_through_back_edges(thread.space, thread.paths.procedure(), pc, last));
}

void PathFollower::instruction(ContextThread& thread, uint64_t pc) {
  ThreadPaths& paths = thread.paths;
  if (paths.falls_through_to(pc) && loops_.falls_back(thread.space, paths.procedure(), pc - 4))
    paths.restart_at(pc);
}

}  // namespace dcpi::contexts
