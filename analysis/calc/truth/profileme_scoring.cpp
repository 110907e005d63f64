#include "analysis/calc/truth/profileme_scoring.h"

#include <algorithm>
#include <cmath>

#include "firmware/profileme.h"

namespace dcpi::calc {

bool ProcedureCycles::within_2sigma() const {
  return std::fabs(projected - exact) <= 2 * sigma + 1e-9;
}

bool ProcedureCycles::judged() const { return records >= kMinJudgedRecords; }

namespace {
// Counts `row` among the judged procedures, and among those within 2σ.
void tally(const ProcedureCycles& row, size_t& judged, size_t& within) {
  judged += row.judged();
  within += row.judged() && row.within_2sigma();
}
}  // namespace

namespace {

constexpr uint64_t kLastBucket = 64;
constexpr double kFigureRightHalf = 16;

size_t bucket_of(double k) {
  size_t b = 0;
  for (uint64_t low = 2; low <= kLastBucket && k >= double(low); low *= 2) ++b;
  return b;
}

bool in_ranges(uint64_t pc, const std::vector<NamedRange>& procedures) {
  return std::any_of(procedures.begin(), procedures.end(),
                     [&](const NamedRange& p) { return pc >= p.range.start && pc < p.range.end; });
}

// Each instruction with records: is k·S within 1 ± 1/√k of `exact(pc)`?
// (by observed k, the figure's buckets); and each instruction of the
// ranges expecting ≥ 16 records: is k within 1 ± 1/√expected of it?
template <typename Exact>
Convergence converge(const RecordsByAddress& records, double interval,
                     const std::vector<NamedRange>& procedures, Exact exact) {
  Convergence c;
  for (uint64_t low = 1; low <= kLastBucket; low *= 2) c.buckets.push_back({low, 0, 0});
  for (const auto& [pc, k] : records) {
    const double truth = static_cast<double>(exact(pc));
    if (k < 1 || truth <= 0 || !in_ranges(pc, procedures)) continue;
    ConvergenceBucket& b = c.buckets[bucket_of(k)];
    ++b.instructions;
    b.within += std::fabs(k * interval / truth - 1) <= 1 / std::sqrt(k);
  }
  for (const NamedRange& p : procedures)
    for (uint64_t pc = p.range.start; pc < p.range.end; pc += 4) {
      const double expected = static_cast<double>(exact(pc)) / interval;
      if (interval <= 0 || expected < kFigureRightHalf) continue;
      const auto found = records.find(pc);
      const double k = found == records.end() ? 0 : found->second;
      ++c.instructions;
      c.within += std::fabs(k / expected - 1) <= 1 / std::sqrt(expected);
    }
  return c;
}

double at(const RecordsByAddress& m, uint64_t pc) {
  const auto found = m.find(pc);
  return found == m.end() ? 0.0 : found->second;
}

// The spread of one latency's values among a PC's k records, Σ (v − mean)²,
// from their sum and log2 distribution (firmware/profileme.h: bucket b holds
// [2^b, 2^(b+1)) cycles, the last 2^7 and more; zero has none): each closed
// bucket's records at the mean of its integers, the open bucket's at what
// the sum leaves for them. 0 without a distribution.
double spread(const std::array<RecordsByAddress, PROFILEME_LATENCY_BUCKETS>& log2, uint64_t pc,
              double sum, double k) {
  constexpr size_t kOpen = PROFILEME_LATENCY_BUCKETS - 1;
  double squares = 0, closed_sum = 0;
  for (size_t b = 0; b < kOpen; ++b) {
    const double n = at(log2[b], pc), value = 1.5 * double(1u << b) - 0.5;
    squares += n * value * value;
    closed_sum += n * value;
  }
  if (const double open = at(log2[kOpen], pc); open > 0) {
    const double value = std::max(double(1u << kOpen), (sum - closed_sum) / open);
    squares += open * value * value;
  }
  return squares > 0 && k > 0 ? std::max(0.0, squares - sum * sum / k) : 0.0;
}

// A latency's sums × S over the procedure against `exact(pc)` summed. Its σ:
// the records a Poisson sample, Var = S² Σ v² = S² Σ_pc (sum²/k + the
// spread `spread_at(pc, k)` adds; each record at its PC's mean alone was a
// lower bound where long misses mix with hits).
template <typename Exact, typename Spread>
ProcedureCycles procedure_latency(const NamedRange& p, const RecordsByAddress& latencies,
                                  const ProfileMeRecords& records, Exact exact, Spread spread_at) {
  ProcedureCycles row{.name = p.name};
  const double s2 = records.interval * records.interval;
  double variance = 0;
  for (const auto& [pc, latency] : latencies) {
    if (pc < p.range.start || pc >= p.range.end) continue;
    row.projected += latency * records.interval;
    const double k = at(records.samples, pc);
    if (k > 0) variance += s2 * (latency * latency / k + spread_at(pc, k));
  }
  for (const auto& [pc, k] : records.samples)
    if (pc >= p.range.start && pc < p.range.end) row.records += k;
  for (uint64_t pc = p.range.start; pc < p.range.end; pc += 4)
    row.exact += static_cast<double>(exact(pc));
  row.sigma = std::sqrt(variance);
  return row;
}

// Fetch -> slot has no distribution; its cycles come mostly with an
// I-cache miss, so its spread is taken as all of them in the records with
// the miss bit and none in the rest (none without such records).
double fetch_spread(const ProfileMeRecords& records, uint64_t pc, double k) {
  const double fetch = at(records.fetch, pc), misses = at(records.imiss, pc);
  if (fetch <= 0 || misses <= 0 || k <= 0) return 0;
  return std::max(0.0, fetch * fetch / std::min(misses, k) - fetch * fetch / k);
}

// Issue + fetch -> slot + slot -> issue: the stall's spread and the fetch's
// (the issue cycles' is left out: one or two).
ProcedureCycles procedure_cycles(const NamedRange& p, const ProfileMeRecords& records,
                                 const GroundTruth& truth) {
  return procedure_latency(
      p, records.latency, records, [&](uint64_t pc) { return truth.cycles(pc); },
      [&](uint64_t pc, double k) {
        return spread(records.stall_log2, pc, at(records.stall, pc), k) +
               fetch_spread(records, pc, k);
      });
}

// Each procedure's issue -> completion and load -> data against the
// truth's lines of `name`, when the truth has them (an armed run).
void score_latency(const RecordsByAddress& latencies, const char* name,
                   const ProfileMeRecords& records, const GroundTruth& truth,
                   const std::vector<NamedRange>& procedures, std::vector<ProcedureCycles>& rows,
                   size_t& judged, size_t& within) {
  const auto lines = truth.pc_events().find(name);
  if (lines == truth.pc_events().end()) return;
  auto exact = [&](uint64_t pc) {
    const auto found = lines->second.find(pc);
    return found == lines->second.end() ? uint64_t{0} : found->second;
  };
  // Both latencies vary only at loads (issue -> completion is a load's
  // load -> data, else its unit's fixed latency).
  auto load_spread = [&](uint64_t pc, double k) {
    return spread(records.load_log2, pc, at(records.load, pc), k);
  };
  for (const NamedRange& p : procedures) {
    ProcedureCycles row = procedure_latency(p, latencies, records, exact, load_spread);
    if (row.projected == 0 && row.exact == 0) continue;
    tally(row, judged, within);
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(),
            [](const ProcedureCycles& a, const ProcedureCycles& b) { return a.exact > b.exact; });
}

double sum_in(const RecordsByAddress& records, const AddressRange& range) {
  double sum = 0;
  for (const auto& [pc, n] : records)
    if (pc >= range.start && pc < range.end) sum += n;
  return sum;
}

// C·L·S/2 − U·W·S − executions, with s = S/2 per record (firmware/profileme.h).
ProcedureWaste procedure_waste(const NamedRange& p, const ProfileMeRecords& records,
                               const GroundTruth& truth) {
  ProcedureWaste row{p.name};
  const double s = records.interval;
  const double w = records.pair_window;
  double variance = 0;
  for (const auto& [pc, k] : records.samples) {
    if (pc < p.range.start || pc >= p.range.end || k <= 0) continue;
    const double slots = profileme_wasted_slots(at(records.window, pc), at(records.overlap, pc),
                                                at(records.retired, pc), s, records.pair_window);
    row.records += k;
    row.estimated += slots;
    // A Poisson sample's sum: Var = Σ value², term by term (C·window,
    // 2W per overlap, 1 per execution; their covariances left out).
    const double squares = at(records.window_squares, pc);
    variance += squares > 0 ? s * s *
                                  (PROFILEME_ISSUE_WIDTH * PROFILEME_ISSUE_WIDTH * squares +
                                   4 * w * w * at(records.overlap, pc) + at(records.retired, pc))
                            : slots * slots / k;
  }
  row.sigma = std::sqrt(variance);
  const auto wasted = truth.pc_events().find("wasted_slots");
  if (wasted != truth.pc_events().end())
    for (uint64_t pc = p.range.start; pc < p.range.end; pc += 4)
      if (const auto found = wasted->second.find(pc); found != wasted->second.end())
        row.exact += static_cast<double>(found->second);
  return row;
}

void score_waste(const ProfileMeRecords& records, const GroundTruth& truth,
                 const std::vector<NamedRange>& procedures, ProfileMeScore& score) {
  score.pair_window = records.pair_window;
  if (records.pair_window == 0 || !truth.pc_events().count("wasted_slots")) return;
  for (const NamedRange& p : procedures) {
    ProcedureWaste row = procedure_waste(p, records, truth);
    if (row.records == 0 && row.exact == 0) continue;
    if (row.records >= kWasteMinRecords) {
      ++score.waste_judged;
      score.waste_within += row.within(kWasteWithin);
    }
    score.waste.push_back(std::move(row));
  }
  std::sort(score.waste.begin(), score.waste.end(),
            [](const ProcedureWaste& a, const ProcedureWaste& b) { return a.exact > b.exact; });
}

}  // namespace

ProfileMeScore score_profileme(const ProfileMeRecords& records, const GroundTruth& truth,
                               const std::vector<NamedRange>& procedures) {
  ProfileMeScore score;
  score.interval = records.interval;
  for (const auto& [pc, k] : records.samples)
    if (in_ranges(pc, procedures)) score.records += k;
  score.executions = converge(records.retired, records.interval, procedures,
                              [&](uint64_t pc) { return truth.executions(pc); });
  const auto misses = truth.pc_events().find("dmiss");
  score.dcache_misses = converge(records.dmiss, records.interval, procedures, [&](uint64_t pc) {
    if (misses == truth.pc_events().end()) return uint64_t{0};
    const auto found = misses->second.find(pc);
    return found == misses->second.end() ? uint64_t{0} : found->second;
  });
  const auto squashed = truth.pc_events().find("squashed");
  auto squashed_at = [&](uint64_t pc) {
    if (squashed == truth.pc_events().end()) return uint64_t{0};
    const auto found = squashed->second.find(pc);
    return found == squashed->second.end() ? uint64_t{0} : found->second;
  };
  score.squashed = converge(records.aborted, records.interval, procedures, squashed_at);
  for (const NamedRange& p : procedures) {
    score.aborted_projected += sum_in(records.aborted, p.range) * records.interval;
    for (uint64_t pc = p.range.start; pc < p.range.end; pc += 4)
      score.squashed_exact += static_cast<double>(squashed_at(pc));
  }
  for (const NamedRange& p : procedures) {
    ProcedureCycles row = procedure_cycles(p, records, truth);
    if (row.projected == 0 && row.exact == 0) continue;
    tally(row, score.procedures_judged, score.procedures_within);
    score.procedures.push_back(std::move(row));
  }
  std::sort(score.procedures.begin(), score.procedures.end(),
            [](const ProcedureCycles& a, const ProcedureCycles& b) { return a.exact > b.exact; });
  score_waste(records, truth, procedures, score);
  score_latency(records.complete, "complete_latency", records, truth, procedures,
                score.complete_latency, score.complete_judged, score.complete_within);
  score_latency(records.load, "load_latency", records, truth, procedures, score.load_latency,
                score.load_judged, score.load_within);
  return score;
}

}  // namespace dcpi::calc
