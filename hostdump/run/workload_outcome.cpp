#include "hostdump/run/workload_outcome.h"

#include <regex>
#include <sstream>

namespace dcpi {
namespace {

// One console line of init or the kernel; appends what it says to `outcome`.
void read_line(const std::string& line, WorkloadOutcome& outcome) {
  static const std::regex exit_line(R"(^init: (\S+) pid (\d+) exit (\d+)( \(expected .*\))?$)");
  static const std::regex signal_line(R"(^init: (\S+) pid (\d+) signal (-?\d+)$)");
  static const std::regex spawn_failed(R"(^init: (\S+) spawn failed: (.*)$)");
  static const std::regex cannot_open(R"(^init: cannot open (\S+): (.*)$)");
  static const std::regex other_trouble(
      R"(^init: (wait failed: .*|\d+ background children lost|line \d+ of .* not run)$)");
  static const std::regex cycles(R"(^dcpi-kernel: init ran (\d+) cycles$)");
  static const std::regex init_exit(R"(^dcpi-kernel: init exited with status (-?\d+)(.*)$)");
  std::smatch m;
  if (std::regex_match(line, m, exit_line)) {
    const std::string who = m[1].str() + " (pid " + m[2].str() + ")";
    const bool expected_failure = m[4].matched && m[4].str() == " (expected failure)";
    if (m[4].matched && !expected_failure)  // init.c's "!" line that exited 0
      outcome.failures.push_back(who + " exited with status 0 but was expected to fail");
    else if (m[3].str() != "0" && !expected_failure)
      outcome.failures.push_back(who + " exited with status " + m[3].str());
  } else if (std::regex_match(line, m, signal_line)) {
    outcome.failures.push_back(m[1].str() + " (pid " + m[2].str() + ") was killed by signal " +
                               m[3].str());
  } else if (std::regex_match(line, m, spawn_failed)) {
    outcome.failures.push_back(m[1].str() + " could not be started: " + m[2].str() +
                               " (is it in the initrd?)");
  } else if (std::regex_match(line, m, cannot_open)) {
    outcome.failures.push_back("init cannot read the workload script " + m[1].str() + ": " +
                               m[2].str() + " (is it in the initrd? workloads/mix/ has the mixes)");
  } else if (std::regex_match(line, m, other_trouble)) {
    outcome.failures.push_back("init: " + m[1].str());
  } else if (std::regex_match(line, m, cycles)) {
    outcome.init_cycles = std::stoull(m[1].str());
  } else if (std::regex_match(line, m, init_exit)) {
    outcome.init_status = std::stoll(m[1].str());
    if (outcome.failures.empty() && *outcome.init_status != 0)  // nothing above said why
      outcome.failures.push_back("init exited with status " + m[1].str() + m[2].str());
  }
}

}  // namespace

WorkloadOutcome read_workload_outcome(std::string_view console) {
  WorkloadOutcome outcome;
  std::istringstream lines{std::string(console)};
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    read_line(line, outcome);
  }
  return outcome;
}

}  // namespace dcpi
