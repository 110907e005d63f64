// for_each_procedure (issue 31): every index once, results by index the same
// for any thread count, and the exception a plain loop would have thrown.
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/calc/frontend/parallel_procedures.h"

namespace dcpi {
namespace {

TEST(ParallelProcedures, EveryIndexRunsOnceWhateverTheThreads) {
  for (size_t threads : {1u, 2u, 3u, 8u}) {
    std::vector<std::atomic<int>> runs(1000);
    std::vector<uint64_t> slots(runs.size());
    for_each_procedure(runs.size(), threads, [&](size_t i) {
      ++runs[i];
      slots[i] = i * i;  // each index writes only its own slot
    });
    for (size_t i = 0; i < runs.size(); ++i) {
      EXPECT_EQ(runs[i], 1) << "index " << i << ", " << threads << " threads";
      EXPECT_EQ(slots[i], i * i);
    }
  }
}

TEST(ParallelProcedures, NoIndicesNoCalls) {
  bool called = false;
  for_each_procedure(0, 4, [&](size_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ParallelProcedures, RethrowsTheLowestFailingIndexAsALoopWould) {
  for (size_t threads : {1u, 2u, 4u}) {
    try {
      for_each_procedure(500, threads, [](size_t i) {
        if (i == 137 || i == 300 || i == 499) throw std::runtime_error(std::to_string(i));
      });
      ADD_FAILURE() << "nothing thrown with " << threads << " threads";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "137") << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace dcpi
