#include "analysis/calc/truth/culprit_scoring.h"

#include <algorithm>
#include <cmath>

namespace dcpi::calc {

void CauseScore::add(const CauseScore& other) {
  true_cycles += other.true_cycles;
  covered_cycles += other.covered_cycles;
  seen_true_cycles += other.seen_true_cycles;
  seen_covered_cycles += other.seen_covered_cycles;
  listed_weight += other.listed_weight;
  real_weight += other.real_weight;
  confirmed_weight += other.confirmed_weight;
  listed += other.listed;
  real += other.real;
  ruled_out += other.ruled_out;
  ruled_out_weight += other.ruled_out_weight;
  ruled_out_true_cycles += other.ruled_out_true_cycles;
}

CauseScore CulpritScores::overall() const {
  CauseScore total;
  for (const auto& [cause, score] : causes) total.add(score);
  return total;
}

double CulpritScores::mean_relative_error() const {
  double error = 0, exact = 0;
  for (const StallEstimate& s : stalls) {
    error += std::abs(s.estimated - s.exact);
    exact += s.exact;
  }
  return exact > 0 ? error / exact : 0;
}

double CulpritScores::fraction_within(double percent) const {
  double within = 0, exact = 0;
  for (const StallEstimate& s : stalls) {
    exact += s.exact;
    if (s.exact > 0 && std::abs(s.estimated - s.exact) <= percent / 100 * s.exact)
      within += s.exact;
  }
  return exact > 0 ? within / exact : 0;
}

std::vector<MissedStall> CulpritScores::largest_missed(size_t count) const {
  std::vector<MissedStall> largest = missed;
  std::sort(largest.begin(), largest.end(),
            [](const MissedStall& a, const MissedStall& b) { return a.cycles > b.cycles; });
  if (largest.size() > count) largest.resize(count);
  return largest;
}

namespace {

// The instructions of the stalled instruction's block: dcpicalc names every
// load inside it that feeds the instruction (§6.3), so its anonymous
// D-cache candidate claims a load outside the block.
struct BlockRange {
  uint64_t start = 0, end = 0;
  bool contains(uint64_t address) const { return address >= start && address < end; }
};

// A listed candidate names a true stall when the causes agree and, where
// both name an instruction, the instructions too; an anonymous D-cache
// candidate does not name a culprit load inside the block.
bool matches(const CulpritCandidate& listed, const TruthStall& truth, BlockRange block) {
  if (listed.cause != truth.cause) return false;
  if (!truth.culprit) return true;
  if (listed.instruction) return *listed.instruction == *truth.culprit;
  return listed.cause != StallCause::kDCacheMiss || !block.contains(*truth.culprit);
}

double dynamic_stall_cycles(const std::vector<TruthStall>& truth_stalls) {
  double cycles = 0;
  for (const TruthStall& t : truth_stalls)
    if (!isa::is_truth_static(t.cause)) cycles += double(t.cycles);
  return cycles;
}

// The truth's cycles behind each candidate the events ruled out.
void score_ruled_out(const std::vector<TruthStall>& truth_stalls, const DynamicStall& stall,
                     double estimated, BlockRange block, CulpritScores& scores) {
  for (const CulpritCandidate& c : stall.ruled_out) {
    CauseScore& score = scores.causes[c.cause];
    ++score.ruled_out;
    score.ruled_out_weight += estimated;
    for (const TruthStall& t : truth_stalls)
      if (matches(c, t, block)) score.ruled_out_true_cycles += double(t.cycles);
  }
}

void note_missed(uint64_t address, const TruthStall& t, const std::vector<CulpritCandidate>& listed,
                 CulpritScores& scores) {
  MissedStall missed{
      .address = address, .cause = t.cause, .culprit = t.culprit, .cycles = double(t.cycles)};
  for (const CulpritCandidate& c : listed) missed.listed.push_back(c.cause);
  scores.missed.push_back(std::move(missed));
}

void score_instruction(uint64_t address, const std::vector<TruthStall>& truth_stalls,
                       const DynamicStall* stall, double estimated, BlockRange block, double period,
                       CulpritScores& scores) {
  static const std::vector<CulpritCandidate> kNone;
  const std::vector<CulpritCandidate>& listed = stall ? stall->candidates : kNone;
  const bool seen = dynamic_stall_cycles(truth_stalls) >= kSeenStallSamples * period;
  for (const TruthStall& t : truth_stalls) {
    if (isa::is_truth_static(t.cause) || t.cycles == 0) continue;
    CauseScore& score = scores.causes[t.cause];
    const bool covered = std::any_of(listed.begin(), listed.end(), [&](const CulpritCandidate& c) {
      return matches(c, t, block);
    });
    score.true_cycles += double(t.cycles);
    if (covered)
      score.covered_cycles += double(t.cycles);
    else
      note_missed(address, t, listed, scores);
    if (!seen) continue;
    score.seen_true_cycles += double(t.cycles);
    if (covered) score.seen_covered_cycles += double(t.cycles);
  }
  for (const CulpritCandidate& c : listed) {
    CauseScore& score = scores.causes[c.cause];
    const bool real = std::any_of(truth_stalls.begin(), truth_stalls.end(), [&](const auto& t) {
      return t.cycles > 0 && matches(c, t, block);
    });
    double true_cycles = 0;
    for (const TruthStall& t : truth_stalls)
      if (matches(c, t, block)) true_cycles += double(t.cycles);
    score.confirmed_weight += std::min(estimated, true_cycles);
    ++score.listed;
    score.listed_weight += estimated;
    if (real) {
      ++score.real;
      score.real_weight += estimated;
    }
  }
  if (stall) score_ruled_out(truth_stalls, *stall, estimated, block, scores);
}

// A busy unit inside one block is static (§6.3: Figure 2's "f"), and the
// schedule already counts it in M_i; the truth books the wait as the unit's
// cause wherever it falls. Only the cycles beyond the schedule's prediction
// (the same unit, the same culprit) are dynamic stalls for dcpicalc to list.
std::vector<TruthStall> dynamic_part(std::vector<TruthStall> truth_stalls,
                                     const ScheduledInstruction& scheduled, const BasicBlock& block,
                                     uint64_t executions) {
  for (TruthStall& t : truth_stalls) {
    if (t.cause != StallCause::kMultiplierBusy && t.cause != StallCause::kFpDividerBusy) continue;
    uint64_t predicted = 0;
    for (const StaticStall& s : scheduled.stalls) {
      if (s.reason != t.cause || !s.culprit || *s.culprit >= block.instructions.size()) continue;
      if (t.culprit && block.instructions[*s.culprit].address != *t.culprit) continue;
      predicted += uint64_t(s.cycles) * executions;
    }
    t.cycles -= std::min(t.cycles, predicted);
  }
  return truth_stalls;
}

// The causes whose true stall in this procedure (the scores' growth since
// `before`) exceeds kNeglectedShare of its cycles with none of it covered.
void note_neglected(const std::string& procedure, double procedure_cycles,
                    const std::map<StallCause, CauseScore>& before, CulpritScores& scores) {
  for (const auto& [cause, after] : scores.causes) {
    const auto was = before.find(cause);
    const CauseScore previous = was == before.end() ? CauseScore{} : was->second;
    const double true_cycles = after.true_cycles - previous.true_cycles;
    const double covered = after.covered_cycles - previous.covered_cycles;
    if (covered > 0 || true_cycles <= kNeglectedShare * procedure_cycles) continue;
    scores.neglected.push_back(
        {.procedure = procedure,
         .cause = cause,
         .true_cycles = true_cycles,
         .seen_true_cycles = after.seen_true_cycles - previous.seen_true_cycles,
         .procedure_cycles = procedure_cycles});
  }
}

}  // namespace

std::optional<TruthStall> palcode_stall(const PalcodeLanding& landing, const GroundTruth& truth) {
  if (!truth.knows_visibility()) return std::nullopt;
  const uint64_t own = truth.cycles(landing.address);
  const uint64_t visible = truth.visible_cycles(landing.address);
  if (visible <= own) return std::nullopt;
  return TruthStall{
      .cause = StallCause::kPalcode, .cycles = visible - own, .culprit = landing.call};
}

void score_culprits(const std::string& procedure, const ProcedureAnalysis& analysis,
                    const CulpritReport& culprits, const GroundTruth& truth, double period,
                    CulpritScores& scores) {
  const std::map<StallCause, CauseScore> before = scores.causes;
  double procedure_cycles = 0;
  std::map<std::pair<BlockId, size_t>, const DynamicStall*> found;
  for (const DynamicStall& s : culprits.stalls) found[{s.block, s.instruction}] = &s;
  std::map<uint64_t, TruthStall> palcode;  // by address, where PALcode's cycles land
  for (const PalcodeLanding& l : analysis.palcode_landings)
    if (const auto pal = palcode_stall(l, truth)) palcode[l.address] = *pal;
  for (BlockId b = 0; b < analysis.cfg.blocks().size(); ++b) {
    const BasicBlock& block = analysis.cfg.block(b);
    const double frequency = analysis.block_frequency(b).value_or(0);
    for (size_t i = 0; i < block.instructions.size(); ++i) {
      const uint64_t address = block.instructions[i].address;
      procedure_cycles += double(truth.cycles(address));
      const auto at = found.find({b, i});
      const DynamicStall* stall = at == found.end() ? nullptr : at->second;
      const double estimated = stall ? stall->cycles * frequency * period : 0;
      const double best = double(analysis.schedules[b].instructions[i].head_cycles) *
                          double(truth.executions(address));
      auto truth_stalls = dynamic_part(truth.stalls(address), analysis.schedules[b].instructions[i],
                                       block, truth.executions(address));
      const auto pal = palcode.find(address);
      const bool landed = pal != palcode.end();
      if (landed) truth_stalls.push_back(pal->second);
      const double exact = std::max(0.0, double(truth.cycles(address)) - best) +
                           (landed ? double(pal->second.cycles) : 0.0);
      if (estimated > 0 || exact > 0) scores.stalls.push_back({address, estimated, exact});
      score_instruction(address, truth_stalls, stall, estimated, {block.start, block.end}, period,
                        scores);
    }
  }
  note_neglected(procedure, procedure_cycles, before, scores);
}

}  // namespace dcpi::calc
