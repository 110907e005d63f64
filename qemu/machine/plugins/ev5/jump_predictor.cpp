#include "qemu/machine/plugins/ev5/jump_predictor.h"

namespace dcpi::ev5 {

bool JumpPredictor::mispredicted(JumpKind kind, uint64_t pc, uint64_t hint_target,
                                 uint64_t target) {
  const uint64_t updated = pc + 4;
  switch (kind) {
    case JumpKind::kNone:
      return false;
    case JumpKind::kBsr:
      push(updated);
      return false;
    case JumpKind::kJsr:
      push(updated);
      return target != hint_target;
    case JumpKind::kJmp:
      return target != hint_target;
    case JumpKind::kRet:
      return target != pop();
    case JumpKind::kCoroutine: {
      const uint64_t predicted = pop();
      push(updated);
      return target != predicted;
    }
  }
  return false;
}

}  // namespace dcpi::ev5
