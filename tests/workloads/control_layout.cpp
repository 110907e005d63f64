// dcpi_user.h (C, user programs) mirrors driver/control_block.h (C++,
// driver and host): the compiler checks the layout, the run checks that
// the magic numbers agree.
#include <cstddef>
#include <cstdio>

#include "dcpi_user.h"
#include "driver/control_block.h"

using Block = dcpi::ControlBlock;
using Request = dcpi_control_request;

static_assert(sizeof(Request) == sizeof(Block));
static_assert(alignof(Request) == alignof(Block));
static_assert(offsetof(Request, magic) == offsetof(Block, magic));
static_assert(offsetof(Request, request_sequence) == offsetof(Block, request_sequence));
static_assert(offsetof(Request, command) == offsetof(Block, command));
static_assert(offsetof(Request, args) == offsetof(Block, args));
static_assert(sizeof(Request::args) == sizeof(Block::args));
static_assert(offsetof(Request, done_sequence) == offsetof(Block, done_sequence));
static_assert(offsetof(Request, status) == offsetof(Block, status));

int main() {
  if (DCPI_CONTROL_MAGIC != dcpi::kControlMagic) {
    std::printf("FAIL: DCPI_CONTROL_MAGIC differs from dcpi::kControlMagic\n");
    return 1;
  }
  std::printf("ok: dcpi_control_request matches dcpi::ControlBlock (%zu bytes)\n", sizeof(Request));
  return 0;
}
