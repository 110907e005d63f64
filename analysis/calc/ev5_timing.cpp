#include "analysis/calc/ev5_timing.h"

namespace dcpi::calc {

Ev5ClassTiming ev5_timing(IssueClass issue_class) {
  constexpr uint8_t kEither = kPipeE0 | kPipeE1;
  switch (issue_class) {
    case IssueClass::kIntLoad:
    case IssueClass::kFpLoad:  // DESIGN §8 gives one D-cache hit latency (2) for loads
      return {.pipes = kEither, .latency = 2, .is_load = true};
    case IssueClass::kIntStore:
    case IssueClass::kFpStore:
    case IssueClass::kMemoryBarrier:
      return {.pipes = kPipeE0, .latency = 1, .is_store = true};
    case IssueClass::kLoadAddress:
    case IssueClass::kIntAdd:
    case IssueClass::kIntLogic:
    case IssueClass::kIntCompare:
      return {.pipes = kEither, .latency = 1};
    case IssueClass::kIntCondMove:
      return {.pipes = kEither, .latency = 2};
    case IssueClass::kIntShift:
      return {.pipes = kPipeE0, .latency = 1};
    case IssueClass::kIntMultimedia:
    case IssueClass::kMisc:
      return {.pipes = kPipeE0, .latency = 2};
    case IssueClass::kIntMultiply32:
      return {.pipes = kPipeE0, .latency = 8, .multiplier_busy = 4};
    case IssueClass::kIntMultiply64:
      return {.pipes = kPipeE0, .latency = 12, .multiplier_busy = 8};
    case IssueClass::kIntMultiplyHigh:
      return {.pipes = kPipeE0, .latency = 14, .multiplier_busy = 8};
    case IssueClass::kBranch:
    case IssueClass::kJump:
    case IssueClass::kCallPal:
      return {.pipes = kPipeE1, .latency = 1};
    case IssueClass::kFpAdd:
      return {.pipes = kPipeFA, .latency = 4};
    case IssueClass::kFpMultiply:
      return {.pipes = kPipeFM, .latency = 4};
    case IssueClass::kFpCopySign:
      return {.pipes = kPipeFA | kPipeFM, .latency = 4};
    case IssueClass::kFpBranch:
      return {.pipes = kPipeFA, .latency = 1};
    case IssueClass::kFpDivideSingle:
      return {.pipes = kPipeFA, .latency = 15, .divider_busy = 15};
    case IssueClass::kFpDivideDouble:
      return {.pipes = kPipeFA, .latency = 22, .divider_busy = 22};
  }
  return {};
}

bool ev5_is_multiply(IssueClass issue_class) {
  return issue_class == IssueClass::kIntMultiply32 || issue_class == IssueClass::kIntMultiply64 ||
         issue_class == IssueClass::kIntMultiplyHigh;
}

uint32_t ev5_operand_latency(IssueClass producer, IssueClass consumer) {
  const uint32_t latency = ev5_timing(producer).latency;
  const bool test_result = producer == IssueClass::kIntCompare || producer == IssueClass::kIntLogic;
  if (test_result && (consumer == IssueClass::kBranch || consumer == IssueClass::kIntCondMove))
    return 0;
  if (ev5_is_multiply(consumer)) return ev5_is_multiply(producer) ? latency + 1 : 3;
  return latency;
}

}  // namespace dcpi::calc
