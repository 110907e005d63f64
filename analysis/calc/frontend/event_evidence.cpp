#include "analysis/calc/frontend/event_evidence.h"

#include <algorithm>
#include <cmath>

#include "analysis/calc/frontend/inputs.h"
#include "firmware/events.h"
#include "profiledb/event_modes.h"

namespace dcpi {

std::optional<calc::StallCause> cause_of_event(const std::string& name) {
  using calc::StallCause;
  const std::string_view event = event_base_name(name);  // imiss:u is imiss evidence too
  if (event == "imiss") return StallCause::kICacheMiss;
  if (event == "itbmiss") return StallCause::kItbMiss;
  if (event == "dmiss") return StallCause::kDCacheMiss;
  if (event == "dtbmiss") return StallCause::kDtbMiss;
  // The 21164 counts mispredicted conditional branches (branchmp) and
  // mispredicted jump targets (pcmispredict) apart; the ev5 model books
  // both restarts as §6.3's one branch-mispredict candidate, charged at the
  // first instruction of the block the branch or jump led to, so samples of
  // either are its evidence (docs/ev5-machine.md "Jump-target prediction").
  if (event == "branchmp" || event == "pcmispredict") return StallCause::kBranchMispredict;
  // Counter 2's LDU replay traps, charged at the load that replayed.
  if (event == "replay") return StallCause::kReplay;
  return std::nullopt;
}

namespace {

// The image's samples of event `name`: its plain profile, or one counted in
// some modes only (imiss:u, issue 26) when those modes are the image's own
// (its cycle samples' PCs: a user program's under `:u`); a kernel image's
// `imiss:u` profile is not "no misses" but "not counted".
std::map<std::string, calc::SamplesByAddress>::const_iterator find_event(
    const ImageSamples& samples, const std::string& name) {
  if (const auto plain = samples.events.find(name); plain != samples.events.end()) return plain;
  for (auto it = samples.events.begin(); it != samples.events.end(); ++it) {
    if (event_base_name(it->first) != name) continue;
    const uint32_t kill = kill_bits_of_event_name(it->first).value_or(0);
    if (!samples.cycles.empty() && counts_at(kill, samples.cycles.begin()->first)) return it;
  }
  return samples.events.end();
}

// A cause's evidence; a second event of the same cause (branchmp and
// pcmispredict: both land where the restart is charged) adds its samples,
// scaled to the first one's events per sample, so the sum counts events.
void add_evidence(calc::CulpritOptions& options, calc::StallCause cause,
                  calc::EventEvidence evidence) {
  const auto [it, added] = options.events.emplace(cause, evidence);
  if (added) return;
  calc::EventEvidence& first = it->second;
  if (first.events_per_sample <= 0) return;
  const double scale = evidence.events_per_sample / first.events_per_sample;
  for (const auto& [address, n] : evidence.samples) first.samples[address] += n * scale;
  first.event += "+" + evidence.event;
}

bool is_profileme_use(const EventEvidenceUse& u) { return u.event.starts_with("pm_"); }

std::string describe_counter_events(const EventEvidenceSummary& s) {
  std::string names;
  for (const EventEvidenceUse& u : s.used)
    if (!is_profileme_use(u)) names += (names.empty() ? "" : ", ") + u.event;
  if (names.empty()) return "";
  std::string line = names + ": a sample every " + std::to_string(EV5_EVENT_PERIOD_BASE) + "-" +
                     std::to_string(EV5_EVENT_PERIOD_BASE + EV5_EVENT_PERIOD_RANGE - 1) +
                     " events (randomized)";
  if (s.sharing > 1) {
    line += ", counter 2 time-shared by " + std::to_string(s.sharing) + " events (";
    if (!s.shares_recorded) line += "shares not recorded: assumed equal; ";
    std::string each;
    for (const EventEvidenceUse& u : s.used)
      if (!is_profileme_use(u))
        each += (each.empty() ? "" : ", ") + u.event + " " +
                std::to_string(std::llround(u.events_per_sample));
    line += "events per sample: " + each + ")";
  }
  return line;
}

std::string describe_profileme(const EventEvidenceSummary& s) {
  std::string names;
  double interval = 0;
  for (const EventEvidenceUse& u : s.used)
    if (is_profileme_use(u)) {
      names += (names.empty() ? "" : ", ") + u.event;
      interval = u.events_per_sample;
    }
  if (names.empty()) return "";
  return "ProfileMe " + names + ": one record per " + std::to_string(std::llround(interval)) +
         " fetched instructions, on the instruction itself";
}

std::string describe(const EventEvidenceSummary& s) {
  std::string names;
  for (const EventEvidenceUse& u : s.used) names += (names.empty() ? "" : ", ") + u.event;
  if (s.ignored) return names + " sampled, not used (--no-events)";
  const std::string counters = describe_counter_events(s), profileme = describe_profileme(s);
  return counters + (counters.empty() || profileme.empty() ? "" : "; ") + profileme +
         "; weighed against the culprits (DCPI 6.3)";
}

// ProfileMe's event bits (issue 27, docs/profileme.md): a record with the
// bit is of the very instruction the model charges the event at (no skid,
// no shared counter), one record per S executions; where a run has them
// they are the evidence for their cause, in place of counter 2's samples.
struct ProfileMeEvidence {
  const char* event;
  calc::StallCause cause;
};
constexpr ProfileMeEvidence kProfileMeEvidence[] = {
    {"pm_imiss", calc::StallCause::kICacheMiss},
    {"pm_itbmiss", calc::StallCause::kItbMiss},
    {"pm_dmiss", calc::StallCause::kDCacheMiss},
    {"pm_dtbmiss", calc::StallCause::kDtbMiss},
    {"pm_mispredict", calc::StallCause::kBranchMispredict},
};

void add_profileme_evidence(const ImageSamples& samples, bool use_events,
                            calc::CulpritOptions& options, EventEvidenceSummary& s) {
  // Only a run that sampled instructions: its records, with S recorded.
  const auto records = samples.events_per_sample.find("pm_samples");
  if (records == samples.events_per_sample.end()) return;
  for (const ProfileMeEvidence& e : kProfileMeEvidence) {
    const auto found = samples.events.find(e.event);
    const calc::SamplesByAddress none;
    const calc::SamplesByAddress& by_address = found == samples.events.end() ? none : found->second;
    double total = 0;
    for (const auto& [address, n] : by_address) total += n;
    std::erase_if(s.used, [&](const EventEvidenceUse& u) { return u.cause == e.cause; });
    s.used.push_back({e.event, e.cause, total, records->second});
    // No record with the bit anywhere is evidence too: none of those events.
    if (use_events) options.events[e.cause] = {e.event, by_address, records->second};
  }
}

}  // namespace

calc::CulpritOptions culprit_options(const ImageSamples& samples, double cycles_period,
                                     bool use_events, EventEvidenceSummary* summary) {
  calc::CulpritOptions options;
  options.cycles_period = cycles_period;
  EventEvidenceSummary s;
  // The driver rotates counter 2's events (driver/event_counters.cpp) and
  // records each one's time on it; a database without those shares gets
  // the round-robin's 1/n.
  for (const std::string& event : samples.sampled_events)
    if (cause_of_event(event)) ++s.sharing;
  const double assumed = kEventInterruptPeriod * double(std::max<size_t>(s.sharing, 1));
  s.shares_recorded = true;
  for (const char* name : kEventNames) {  // firmware/events.h order: imiss, dmiss, branchmp, ...
    const auto found = find_event(samples, name);
    const std::optional<calc::StallCause> cause = cause_of_event(name);
    if (found == samples.events.end() || !cause) continue;
    const auto& [event, by_address] = *found;
    const auto recorded = samples.events_per_sample.find(event);
    if (recorded == samples.events_per_sample.end()) s.shares_recorded = false;
    const double per_sample =
        recorded != samples.events_per_sample.end() ? recorded->second : assumed;
    double total = 0;
    for (const auto& [address, n] : by_address) total += n;
    s.used.push_back({event, *cause, total, per_sample});
    if (use_events) add_evidence(options, *cause, {event, by_address, per_sample});
  }
  add_profileme_evidence(samples, use_events, options, s);
  s.ignored = !use_events && !s.used.empty();
  if (!s.used.empty()) s.description = describe(s);
  if (summary) *summary = std::move(s);
  return options;
}

}  // namespace dcpi
