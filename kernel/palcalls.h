// The kernel's CALL_PAL wrappers are firmware/pal_calls.h's (shared with the
// driver); kernel code names them kernel::pal::whami() and so on.
#pragma once
#include "firmware/pal_calls.h"

namespace kernel {
namespace pal = dcpi::pal;
}  // namespace kernel
