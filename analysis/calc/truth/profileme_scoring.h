// ProfileMe's records against the machine's truth (issue 27 item 5; seed
// 004 §4, Figure 3): how close each instruction's estimate k·S comes to the
// exact count as its records k grow, for executions (retired records) and
// D-cache misses (records with the bit), and whether each procedure's
// latencies × S give its true cycles (issue + fetch -> slot + slot ->
// issue = the truth's `cycles` per PC).
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/calc/truth/ground_truth.h"
#include "analysis/calc/truth/placement.h"
#include "firmware/profileme.h"

namespace dcpi::calc {

using RecordsByAddress = std::unordered_map<uint64_t, double>;

// Figure 3's measure: instructions whose estimate lies within 1 ± 1/√k of
// exact, by k (records at the instruction), as the paper plots it; and,
// for the headline share, by the records expected from the truth (exact /
// S ≥ 16, window 1 ± 1/√expected): selecting on the observed k favours
// the instructions that drew high, which puts a Poisson count's own share
// below its 68 % wherever many instructions sit near the cut.
struct ConvergenceBucket {
  uint64_t min_records = 0;  // k in [min_records, 2 × min_records); the last bucket: and more
  size_t instructions = 0;
  size_t within = 0;
};
struct Convergence {
  std::vector<ConvergenceBucket> buckets;  // k = 1, 2-3, 4-7, ..., >= 64
  size_t instructions = 0;                 // expecting >= 16 records (the figure's right half)
  size_t within = 0;                       // of those, within 1 ± 1/√expected
  double share() const { return instructions ? double(within) / double(instructions) : 0; }
};

struct ProcedureCycles {
  std::string name;
  double projected = 0;  // Σ latencies × S
  double exact = 0;      // the truth's cycles
  // Of the projection: the records as a Poisson sample, Var = S² Σ latency²
  // (each PC's records at its mean, plus their spread that the PC's log2
  // distribution shows).
  double sigma = 0;
  double records = 0;  // in the procedure
  bool within_2sigma() const;
  // Judged with at least kMinJudgedRecords records: with fewer, the records
  // cannot show the spread of a latency (memset's few long misses among its
  // one-cycle stores), so neither the projection nor σ says much.
  bool judged() const;
};
// As Figure 3's right half (16 records and more).
inline constexpr double kMinJudgedRecords = 16;

// Paired sampling's wasted issue slots (seed 004 §5.2.3) per procedure:
// the estimate from the records against the truth's `wasted_slots`.
struct ProcedureWaste {
  std::string name;
  double records = 0;
  double estimated = 0;
  double exact = 0;
  // Of the estimate: the records as a Poisson sample, each term's squares
  // summed (the windows' from pm_window_sq; without it each PC's records
  // as its mean, a lower bound where misses mix with hits).
  double sigma = 0;
  double error() const { return exact > 0 ? estimated / exact - 1 : 0; }
  bool within(double share) const { return exact > 0 && std::fabs(error()) <= share; }
};

struct ProfileMeScore {
  double interval = 0;  // S (S/2 when paired: what one record stands for)
  double records = 0;
  Convergence executions, dcache_misses;
  // The wrong path (issue 27 item 1): aborted records (no retired bit)
  // against the truth's squashed fetches per PC, and their totals.
  Convergence squashed;
  double aborted_projected = 0, squashed_exact = 0;
  std::vector<ProcedureCycles> procedures;  // most cycles first
  size_t procedures_judged = 0;             // with >= kMinJudgedRecords records
  size_t procedures_within = 0;             // of those, within 2σ
  // Seed 004 Table 1's issue -> completion and load issue -> data (issue
  // 27): the records' sums × S per procedure against the truth's
  // `complete_latency` and `load_latency` lines (none: not scored).
  std::vector<ProcedureCycles> complete_latency, load_latency;  // most true cycles first
  size_t complete_judged = 0, load_judged = 0;                  // as procedures_judged
  size_t complete_within = 0, load_within = 0;                  // of those, within 2σ
  uint32_t pair_window = 0;                                     // W; 0: not paired, no waste scored
  std::vector<ProcedureWaste> waste;                            // most true wasted slots first
  size_t waste_judged = 0;  // procedures with >= kWasteMinRecords records
  size_t waste_within = 0;  // of those, within kWasteWithin of the truth
};
inline constexpr double kWasteWithin = 0.10;  // issue 27: within 10 %
// A procedure with fewer records is sampling noise first: a record of a
// group's leader alone stands for S/2 × (C × cycles − 1) slots.
inline constexpr double kWasteMinRecords = 1000;

struct ProfileMeRecords {
  RecordsByAddress samples, retired, dmiss, latency;  // latency: issue + fetch + stall cycles
  RecordsByAddress aborted;                           // samples - retired
  // Issue -> completion (a load's pm_load_cycles, else retired x its unit
  // latency: isa/ev5_unit_latency.h) and pm_load_cycles.
  RecordsByAddress complete, load;
  // Slot -> issue (pm_stall_cycles) and the log2 distributions of it and of
  // load -> data (pm_stall_log2_K, pm_load_log2_K; firmware/profileme.h).
  RecordsByAddress stall;
  // Fetch -> slot (pm_fetch_cycles) and the records with an I-cache miss
  // (pm_imiss), which carry most of it.
  RecordsByAddress fetch, imiss;
  std::array<RecordsByAddress, PROFILEME_LATENCY_BUCKETS> stall_log2, load_log2;
  double interval = 0;
  // Paired sampling: cycles in progress and useful overlaps per PC, and W.
  RecordsByAddress window, overlap, window_squares;
  uint32_t pair_window = 0;
};

struct NamedRange {
  std::string name;
  AddressRange range;
};

ProfileMeScore score_profileme(const ProfileMeRecords& records, const GroundTruth& truth,
                               const std::vector<NamedRange>& procedures);

}  // namespace dcpi::calc
