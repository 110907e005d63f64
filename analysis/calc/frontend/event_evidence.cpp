#include "analysis/calc/frontend/event_evidence.h"

#include <algorithm>
#include <cmath>

#include "analysis/calc/frontend/inputs.h"
#include "firmware/events.h"

namespace dcpi {

std::optional<calc::StallCause> cause_of_event(const std::string& event) {
  using calc::StallCause;
  if (event == "imiss") return StallCause::kICacheMiss;
  if (event == "itbmiss") return StallCause::kItbMiss;
  if (event == "dmiss") return StallCause::kDCacheMiss;
  if (event == "dtbmiss") return StallCause::kDtbMiss;
  if (event == "branchmp") return StallCause::kBranchMispredict;
  return std::nullopt;
}

namespace {

std::string describe(const EventEvidenceSummary& s) {
  std::string names;
  for (const EventEvidenceUse& u : s.used) names += (names.empty() ? "" : ", ") + u.event;
  if (s.ignored) return names + " sampled, not used (--no-events)";
  std::string line = names + ": a sample every " + std::to_string(EV5_EVENT_PERIOD_BASE) + "-" +
                     std::to_string(EV5_EVENT_PERIOD_BASE + EV5_EVENT_PERIOD_RANGE - 1) +
                     " events (randomized)";
  if (s.sharing > 1) {
    line += ", counter 2 time-shared by " + std::to_string(s.sharing) + " events (";
    if (!s.shares_recorded) line += "shares not recorded: assumed equal; ";
    std::string each;
    for (const EventEvidenceUse& u : s.used)
      each += (each.empty() ? "" : ", ") + u.event + " " +
              std::to_string(std::llround(u.events_per_sample));
    line += "events per sample: " + each + ")";
  }
  return line + "; weighed against the culprits (DCPI 6.3)";
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
    const auto found = samples.events.find(name);
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
    if (use_events) options.events[*cause] = {event, by_address, per_sample};
  }
  s.ignored = !use_events && !s.used.empty();
  if (!s.used.empty()) s.description = describe(s);
  if (summary) *summary = std::move(s);
  return options;
}

}  // namespace dcpi
