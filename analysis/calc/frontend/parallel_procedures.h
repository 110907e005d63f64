// Runs one function per procedure index on a few threads (issue 31: the
// analysis of one procedure never reads another's, DCPI §6.1 is per
// procedure). Each index runs exactly once and writes only its own result
// slot, so callers that gather results by index get the same output for any
// thread count. The exception of the lowest failing index (the one a plain
// loop would have thrown) is rethrown after every thread has stopped.
#pragma once
#include <cstddef>
#include <functional>

namespace dcpi {

// The threads to use by default: the machine's processors (at least 1).
size_t default_analysis_threads();

// Calls run(i) for every i in [0, count) on min(threads, count) threads
// (threads == 1: in order on the calling thread).
void for_each_procedure(size_t count, size_t threads, const std::function<void(size_t)>& run);

}  // namespace dcpi
