// The modes an event was counted in (issue 26 item 1): perf's event
// modifiers (`imiss:u`, `:k`, `:p`, combined as `:uk`) as the 21164's kill
// bits (HRM PMCTR KILLU, KILLK, KILLP; firmware/ev5_counters.h). The 21164
// has ONE set of kill bits for all its counters, so every event of counters
// 1 and 2 in a run has the same modes; counter 0's cycles here is PALcode's
// virtual clock, which counts in every mode (docs/ev5-machine.md "Event
// counters"). The driver records the kill bits it programmed (epoch.meta
// `event_kill`, docs/profile-db.md) and the reader names the profiles of
// counters 1 and 2 `EVENT:MODES`, so a report says what it counted.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "profiledb/profile_db.h"

namespace dcpi {

// The kill bits of a modifier's letters ("u", "kp", ...): the modes NOT
// named. nullopt for an empty text, an unknown or repeated letter, or all
// three (counts in every mode: no modifier).
std::optional<uint32_t> kill_bits_of_modes(std::string_view letters);
// ":u", ":kp", ...: the modes the kill bits leave, "" for 0 (every mode).
std::string mode_suffix(uint32_t kill_bits);
// "imiss:u" -> "imiss"; a name without a modifier as it is.
std::string_view event_base_name(std::string_view name);
// The kill bits a profile's name says ("imiss:u" -> KILLK|KILLP); 0 without
// a modifier; nullopt for a modifier that does not parse.
std::optional<uint32_t> kill_bits_of_event_name(std::string_view name);
// Whether an event counted with `kill_bits` counts at `pc`: the model's
// mode of a PC (PALcode's region, else kernel KSEG, else user;
// qemu/machine/plugins/ev5/perf_counters.cpp mode_of).
bool counts_at(uint32_t kill_bits, uint64_t pc);
// The epoch's kill bits for counters 1 and 2 (epoch.meta `event_kill`, 0
// when absent: every mode, as before the modifiers).
uint32_t epoch_kill_bits(const EpochMetadata& metadata);
// Whether `event` (dcpi::Event) is counter 1's or 2's, which the kill bits
// restrict (counter 0's cycles never are).
bool event_has_modes(uint16_t event);

}  // namespace dcpi
