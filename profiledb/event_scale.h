// What one sample of an event stands for (issue 26 item 2): DCPI §4.1 draws
// each period of a counter at random, so a sample is `mean period` events;
// when the events outnumber the counters they take turns on counter 2
// (DCPI's mux, the R10000 paper's multiplexing) and each was counted only
// for its share of the time, so its projected count is
//   samples × mean period ÷ share.
// The shares come from the driver's counted cycles (epoch.meta
// `counted_cycles_<event>`, firmware/transfer_ring.h EventCountedCycles).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "profiledb/profile_db.h"

namespace dcpi {

struct EventScale {
  double mean_period = 0;  // events per sample while counted; 0: not recorded
  double share = 1;        // of the sampled time the event had its counter
  bool shared = false;     // counter 2 rotated: `share` measured (counted cycles)
  // ProfileMe's paired sampling window W (epoch.meta profileme_pair_window),
  // 0: single records; a pm_* record then stands for S/2 (mean_period).
  uint32_t pair_window = 0;
  // The events one sample stands for; nullopt when the period is unknown.
  std::optional<double> events_per_sample() const;
};

// Counter 0's events (cycles, issues) use the epoch's recorded period and
// have it all the time; counter 2's (imiss, dmiss, ...) the firmware's
// period (firmware/ev5_counters.h) and the share of the epoch's counted
// cycles (summed over CPUs) that was theirs, 1 when it did not rotate.
EventScale event_scale(const EpochMetadata& metadata, uint16_t event);

// ProfileMe's events (pm_*, firmware/profileme.h): counts and summed
// latencies of records, one per mean interval of fetched instructions (the
// paper's S): each times S estimates the total; with paired sampling
// (`profileme_pair_window`) two per interval, each times S/2.
bool is_profileme_event(uint16_t event);

// "a sample every 9215.5 cycles (mean)", "... imiss (mean), counted 33.3 % of the time".
std::string describe_scale(const EventScale& scale, const std::string& event);

}  // namespace dcpi
