// dcpi_user.h (C, user programs) mirrors firmware/control_block.h (C++,
// driver and host): the compiler checks the layout, the run checks that
// the magic numbers agree.
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "dcpi_events.h"
#include "dcpi_user.h"
#include "firmware/control_block.h"
#include "firmware/events.h"

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
  static_assert(DCPI_EVENT_COUNT == static_cast<size_t>(dcpi::Event::kCount));
  for (size_t i = 0; i < DCPI_EVENT_COUNT; ++i)
    if (std::strcmp(dcpi_event_names[i], dcpi::kEventNames[i]) != 0) {
      std::printf("FAIL: event %zu is '%s' in dcpi_events.h, '%s' in firmware/events.h\n", i,
                  dcpi_event_names[i], dcpi::kEventNames[i]);
      return 1;
    }
  static_assert(DCPI_CONTROL_SET_EVENTS == static_cast<int>(dcpi::ControlCommand::kSetEvents));
  static_assert(DCPI_CONTROL_NEW_EPOCH == static_cast<int>(dcpi::ControlCommand::kNewEpoch));
  std::printf("ok: dcpi_control_request matches dcpi::ControlBlock (%zu bytes)\n", sizeof(Request));
  return 0;
}
