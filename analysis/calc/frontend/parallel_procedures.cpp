#include "analysis/calc/frontend/parallel_procedures.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace dcpi {

size_t default_analysis_threads() {
  return std::max<size_t>(1, std::thread::hardware_concurrency());
}

void for_each_procedure(size_t count, size_t threads, const std::function<void(size_t)>& run) {
  threads = std::min(std::max<size_t>(threads, 1), count);
  if (threads <= 1) {
    for (size_t i = 0; i < count; ++i) run(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  size_t error_index = count;
  std::mutex error_lock;
  auto worker = [&] {
    for (size_t i; !failed && (i = next.fetch_add(1)) < count;) {
      try {
        run(i);
      } catch (...) {
        const std::lock_guard<std::mutex> hold(error_lock);
        // Indices are handed out in order and every one handed out runs to
        // its end, so the lowest failing index is the one a loop would throw.
        if (i < error_index) error = std::current_exception(), error_index = i;
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace dcpi
