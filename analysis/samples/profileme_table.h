// What `dcpi profileme` shows (issue 27 item 4; seed 004 §4): ProfileMe's
// records (the pm_* events, firmware/profileme.h) per procedure, or per
// instruction of one procedure, turned into the paper's estimates: the
// executions k·S (retired records times the mean interval), event rates per
// execution (D-cache misses per execution of a load, mispredicts, ...), the
// aborted share, and each latency's mean per record and distribution
// (log2 buckets of the stall and of the load's latency).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/samples/sample_set.h"
#include "firmware/profileme.h"
#include "symbols/image_resolver.h"

namespace dcpi {

struct ProfileMeRow {
  std::string image;                // display name
  std::string procedure;            // or the instruction's procedure
  std::optional<uint64_t> address;  // per instruction
  std::string instruction;          // per instruction: its disassembly, when the ELF is found
  uint64_t records = 0;             // pm_samples
  uint64_t retired = 0;             // pm_retired
  double executions = 0;            // retired x S (summed over epochs)
  // Per event bit: records with it (firmware/profileme.h order).
  uint64_t imiss = 0, itbmiss = 0, dmiss = 0, dtbmiss = 0, mispredict = 0, pal = 0;
  uint64_t smiss = 0, bmiss = 0, wbuf = 0;  // the D-cache miss's level; a full write buffer
  uint64_t trap = 0;                        // trapped into PALcode (PROFILEME_BIT_TRAP)
  uint64_t replay = 0;                      // replay-trapped loads (PROFILEME_BIT_REPLAY)
  // Latencies summed over the records (cycles): register 2's, then
  // issue -> completion (a load's data latency, else its unit latency per
  // retired record: isa/ev5_unit_latency.h) and load issue -> data.
  uint64_t issue = 0, fetch = 0, stall = 0, complete = 0, load = 0;
  bool complete_known = true;  // every retired record's instruction was found
  // The distributions: records per log2 bucket of the slot -> issue stall
  // and of the load's latency (firmware/profileme.h
  // PROFILEME_LATENCY_BUCKETS: [2^k, 2^(k+1)), the last open); records
  // with a zero latency are in none.
  std::array<uint64_t, PROFILEME_LATENCY_BUCKETS> stall_buckets{}, load_buckets{};
  // Paired sampling (seed 004 §5.2.3): cycles in progress summed, and the
  // records whose partner issued with them (useful overlap).
  uint64_t window = 0, overlap = 0;
  // The wasted issue slots while its instructions were in progress,
  // C·L·S/2 − U·W·S − executions, when the records were paired.
  std::optional<double> wasted;
};

struct ProfileMeReport {
  std::vector<ProfileMeRow> rows;  // most records first
  uint64_t records = 0;
  double interval = 0;       // what one record stands for: S (S/2 when paired), 0 if unknown
  uint32_t pair_window = 0;  // W when the records were paired, else 0
  std::vector<std::string> warnings;
};

// Seed 004 §5.2.3's estimate for the row (firmware/profileme.h
// profileme_wasted_slots), `interval` what one paired record stands for (S/2).
double wasted_issue_slots(const ProfileMeRow& row, double interval, uint32_t pair_window);

// Per procedure of every image; with `procedure`, per instruction of it.
ProfileMeReport build_profileme_report(const SampleSet& samples, ImageResolver& resolver,
                                       const std::optional<std::string>& procedure);

}  // namespace dcpi
