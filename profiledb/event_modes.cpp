#include "profiledb/event_modes.h"

#include "firmware/ev5_counters.h"
#include "firmware/events.h"
#include "firmware/memory_map.h"

namespace dcpi {

namespace {

struct ModeLetter {
  char letter;
  uint32_t kill;  // the kill bit that stops counting in that mode
};
// Suffix order: user, kernel, PAL (perf's u, k; p for PALmode).
constexpr ModeLetter kModes[] = {{'u', EV5_KILL_USER}, {'k', EV5_KILL_KERNEL}, {'p', EV5_KILL_PAL}};
constexpr uint32_t kAllKills = EV5_KILL_MASK;

}  // namespace

std::optional<uint32_t> kill_bits_of_modes(std::string_view letters) {
  uint32_t counted = 0;
  for (char c : letters) {
    uint32_t bit = 0;
    for (const ModeLetter& m : kModes)
      if (m.letter == c) bit = m.kill;
    if (bit == 0 || (counted & bit)) return std::nullopt;
    counted |= bit;
  }
  if (counted == 0 || counted == kAllKills) return std::nullopt;
  return kAllKills & ~counted;
}

std::string mode_suffix(uint32_t kill_bits) {
  kill_bits &= kAllKills;
  if (kill_bits == 0) return "";
  std::string suffix = ":";
  for (const ModeLetter& m : kModes)
    if (!(kill_bits & m.kill)) suffix += m.letter;
  return suffix;
}

std::string_view event_base_name(std::string_view name) { return name.substr(0, name.find(':')); }

std::optional<uint32_t> kill_bits_of_event_name(std::string_view name) {
  const size_t colon = name.find(':');
  if (colon == std::string_view::npos) return 0u;
  return kill_bits_of_modes(name.substr(colon + 1));
}

bool counts_at(uint32_t kill_bits, uint64_t pc) {
  const uint32_t mode_bit = is_palcode_address(pc) ? EV5_KILL_PAL
                            : (pc >> 63)           ? EV5_KILL_KERNEL
                                                   : EV5_KILL_USER;
  return (kill_bits & mode_bit) == 0;
}

uint32_t epoch_kill_bits(const EpochMetadata& metadata) {
  for (const auto& [cpu, stats] : metadata.cpu_stats)
    if (const auto found = stats.find("event_kill"); found != stats.end() && found->second != 0)
      return static_cast<uint32_t>(found->second) & kAllKills;
  return 0;
}

bool event_has_modes(uint16_t event) {
  return event < static_cast<uint16_t>(Event::kCount) &&
         (kCountableOnEv5 & event_bit(static_cast<Event>(event))) != 0;
}

}  // namespace dcpi
