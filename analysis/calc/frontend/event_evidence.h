// The event samples dcpicalc weighs its culprits with (DCPI §6.3: "Sample
// counts for other types of events are taken into consideration if
// available"): IMISS bounds I-cache stall explanations, DMISS and BRANCHMP
// (and the TB-miss events) confirm or rule out D-cache, mispredict and TB
// explanations. Each event's samples are scaled to events by the counter's
// interrupt period and the event's share of the counter (docs/calc.md,
// "Event samples").
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/model/processor_model.h"
#include "firmware/ev5_counters.h"

namespace dcpi {

struct ImageSamples;

// The stall cause an event counts; nullopt for an event that explains no
// §6.3 cause (cycles).
std::optional<calc::StallCause> cause_of_event(const std::string& event);

// Counter 2's mean sampling period: the driver draws each uniformly in
// [EV5_EVENT_PERIOD_BASE, + EV5_EVENT_PERIOD_RANGE) events (DCPI §4.1.1's
// randomization; driver/event_counters.cpp).
inline constexpr double kEventInterruptPeriod =
    EV5_EVENT_PERIOD_BASE + (EV5_EVENT_PERIOD_RANGE - 1) / 2.0;

struct EventEvidenceUse {
  std::string event;
  calc::StallCause cause = calc::StallCause::kOther;
  double samples = 0;            // in the image
  double events_per_sample = 0;  // the period over the event's share
};

// What calc knows about the events beside cycles, for the header and JSON.
struct EventEvidenceSummary {
  std::vector<EventEvidenceUse> used;  // events weighed (in the image's profiles)
  size_t sharing = 0;                  // counter-2 events that shared the counter in the epochs
  bool shares_recorded = false;        // each one's share of time came from the database
  bool ignored = false;                // --no-events: present but not used
  std::string description;             // one line for the header; empty without events
};

// The culprit options for `samples` (cycles_period = the mean CYCLES period)
// and what they mean. With use_events false, or no event samples, the
// options carry none and calc works from the CYCLES samples alone.
calc::CulpritOptions culprit_options(const ImageSamples& samples, double cycles_period,
                                     bool use_events, EventEvidenceSummary* summary);

}  // namespace dcpi
