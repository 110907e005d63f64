// Causes of cycles at the head of the issue queue, as the truth file names
// them (docs/exec-counts-format.md, version 2): static (slot, dep, and the
// busy units inside one block) and dynamic.
#pragma once
#include <cstddef>
#include <cstdint>

namespace dcpi::ev5 {

enum class Cause : uint8_t {
  kSlot,
  kDep,
  kImulBusy,
  kFdivBusy,
  kIcache,
  kDcache,
  kItb,
  kDtb,
  kWbuf,
  kMispredict,
  kOther,
};
inline constexpr int kCauseCount = 11;

constexpr const char* cause_name(Cause cause) {
  constexpr const char* kNames[kCauseCount] = {"slot",   "dep",        "imul_busy", "fdiv_busy",
                                               "icache", "dcache",     "itb",       "dtb",
                                               "wbuf",   "mispredict", "other"};
  return kNames[static_cast<int>(cause)];
}

inline constexpr uint64_t kNoCulprit = ~0ull;

}  // namespace dcpi::ev5
