// dcpi run reads how the workloads ended from the guest console
// (hostdump/run/workload_outcome.h, issue 16 points 3 and 8). The lines are
// the ones workloads/init.c and kernel/process.cpp print.
#include "hostdump/run/workload_outcome.h"

#include <gtest/gtest.h>

namespace dcpi {
namespace {

TEST(WorkloadOutcome, ASuccessfulRunHasTheWorkloadCyclesAndNoFailure) {
  const WorkloadOutcome outcome = read_workload_outcome(
      "init: running copy on dcpi-alpha\n"
      "checksum copy 0xcb24511ba819bfb9\n"
      "init: copy pid 2 exit 0\n"
      "init: 0 failed\ninit: done\n"
      "dcpi-kernel: init ran 123456789 cycles\r\n"
      "dcpi-kernel: init exited with status 0\nDCPI-DONE\n");
  EXPECT_FALSE(outcome.failed());
  EXPECT_EQ(outcome.init_cycles, 123456789u);
  EXPECT_EQ(outcome.init_status, 0);
}

TEST(WorkloadOutcome, EachFailureIsNamed) {
  const WorkloadOutcome outcome = read_workload_outcome(
      "init: copy pid 2 exit 3\n"
      "init: stream pid 3 signal 11\n"
      "init: /bin/nosuch spawn failed: No such file or directory\n"
      "init: 3 failed\n"
      "dcpi-kernel: init exited with status 1\n");
  ASSERT_EQ(outcome.failures.size(), 3u);
  EXPECT_EQ(outcome.failures[0], "copy (pid 2) exited with status 3");
  EXPECT_EQ(outcome.failures[1], "stream (pid 3) was killed by signal 11");
  EXPECT_EQ(outcome.failures[2],
            "/bin/nosuch could not be started: No such file or directory (is it in the initrd?)");
  EXPECT_FALSE(outcome.init_cycles);
}

TEST(WorkloadOutcome, AnUnknownMixIsAFailure) {
  const WorkloadOutcome outcome = read_workload_outcome(
      "init: cannot open /etc/nosuch.mix: No such file or directory\ninit: done\n"
      "dcpi-kernel: init ran 5000 cycles\ndcpi-kernel: init exited with status 1\n");
  ASSERT_EQ(outcome.failures.size(), 1u);
  EXPECT_NE(outcome.failures[0].find("/etc/nosuch.mix: No such file or directory"),
            std::string::npos);
}

TEST(WorkloadOutcome, ExpectedFailuresAndInitsOwnStatus) {
  // init.c's "!" lines: a non-zero exit is expected, an exit 0 is the failure.
  WorkloadOutcome outcome = read_workload_outcome(
      "init: dcpictl pid 4 exit 1 (expected failure)\n"
      "dcpi-kernel: init exited with status 0\n");
  EXPECT_FALSE(outcome.failed());
  outcome = read_workload_outcome("init: dcpictl pid 4 exit 0 (expected to fail)\n");
  ASSERT_EQ(outcome.failures.size(), 1u);
  EXPECT_EQ(outcome.failures[0], "dcpictl (pid 4) exited with status 0 but was expected to fail");
  // init itself killed, nothing else said: its status is the failure.
  outcome = read_workload_outcome("dcpi-kernel: init exited with status 11 (killed by a signal)\n");
  ASSERT_EQ(outcome.failures.size(), 1u);
  EXPECT_EQ(outcome.failures[0], "init exited with status 11 (killed by a signal)");
  // A line that only looks similar inside a workload's output is not init's.
  outcome = read_workload_outcome("checksum init: copy pid 2 exit 3\n");
  EXPECT_FALSE(outcome.failed());
  // Issue 30: a script line init refused to cut is a failure of its own.
  outcome = read_workload_outcome(
      "init: line 2 of /etc/program.mix is longer than 510 bytes: not run\n");
  ASSERT_EQ(outcome.failures.size(), 1u);
  EXPECT_EQ(outcome.failures[0],
            "init: line 2 of /etc/program.mix is longer than 510 bytes: not run");
}

}  // namespace
}  // namespace dcpi
