// The kernel's spin lock is the guest's one lock primitive
// (firmware/spin_lock.h), shared with the driver.
#pragma once
#include "firmware/spin_lock.h"

namespace kernel {
using dcpi::LockGuard;
using dcpi::SpinLock;
}  // namespace kernel
