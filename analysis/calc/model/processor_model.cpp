#include "analysis/calc/model/processor_model.h"

namespace dcpi::calc {

std::string_view to_string(StaticStallReason reason) {
  switch (reason) {
    case StaticStallReason::kSlotting:
      return "slotting";
    case StaticStallReason::kDependency:
      return "dependency";
    case StaticStallReason::kMultiplierBusy:
      return "multiplier busy";
    case StaticStallReason::kFpDividerBusy:
      return "FP divider busy";
    case StaticStallReason::kMultiplyWritebackE0:
      return "E0 reserved for multiply write-back";
  }
  return "?";
}

std::string_view to_string(DynamicStallCause cause) {
  switch (cause) {
    case DynamicStallCause::kICacheMiss:
      return "I-cache miss";
    case DynamicStallCause::kDCacheMiss:
      return "D-cache miss";
    case DynamicStallCause::kItbMiss:
      return "ITB miss";
    case DynamicStallCause::kDtbMiss:
      return "DTB miss";
    case DynamicStallCause::kBranchMispredict:
      return "branch mispredict";
    case DynamicStallCause::kWriteBufferOverflow:
      return "write-buffer overflow";
    case DynamicStallCause::kMultiplierBusy:
      return "multiplier busy";
    case DynamicStallCause::kFpDividerBusy:
      return "FP divider busy";
  }
  return "?";
}

}  // namespace dcpi::calc
