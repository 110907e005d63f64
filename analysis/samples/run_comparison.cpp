#include "analysis/samples/run_comparison.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace dcpi {
namespace {

struct SetCounts {
  uint64_t total = 0;
  std::map<std::string, uint64_t> by_key;  // row_key -> samples of the event
};

// Per-procedure counts of one set for one event; names shared through `names`.
SetCounts count_procedures(const SampleSet& set, ImageResolver& resolver, const std::string& event,
                           std::map<std::string, std::pair<std::string, std::string>>& names,
                           std::set<std::string>& warnings, bool& has_event) {
  const ProfileReport report = build_report(set, resolver, Grouping::kProcedure);
  warnings.insert(report.warnings.begin(), report.warnings.end());
  SetCounts counts;
  const auto column = event_column(report, event);
  if (!column) return counts;
  has_event = true;
  counts.total = report.totals[*column];
  for (const ReportRow& row : report.rows) {
    if (row.samples[*column] == 0) continue;
    const std::string key = row_key(row);
    counts.by_key[key] += row.samples[*column];
    names.emplace(key, std::make_pair(row.image_path, row.procedure));
  }
  return counts;
}

}  // namespace

std::string periods_text(const std::map<uint64_t, SamplingPeriod>& periods) {
  if (periods.empty()) return "unknown";
  const SamplingPeriod& first = periods.begin()->second;
  if (std::all_of(periods.begin(), periods.end(),
                  [&](const auto& entry) { return entry.second == first; }))
    return to_string(first);
  std::string text;
  for (const auto& [epoch, period] : periods)
    text +=
        (text.empty() ? "epoch " : "; epoch ") + std::to_string(epoch) + " " + to_string(period);
  return text;
}

std::string machines_text(const std::map<uint64_t, std::string>& machines) {
  if (machines.empty()) return "unknown";
  const std::string& first = machines.begin()->second;
  if (std::all_of(machines.begin(), machines.end(),
                  [&](const auto& entry) { return entry.second == first; }))
    return first;
  std::string text;
  for (const auto& [epoch, machine] : machines)
    text += (text.empty() ? "epoch " : "; epoch ") + std::to_string(epoch) + " " + machine;
  return text;
}

VariationReport compare_sets(const std::vector<SampleSet>& sets, ImageResolver& resolver,
                             const std::string& event) {
  VariationReport report;
  report.event = event;
  std::map<std::string, std::pair<std::string, std::string>> names;
  std::set<std::string> warnings;
  bool has_event = false;
  std::vector<SetCounts> counts;
  for (const SampleSet& set : sets) {
    counts.push_back(count_procedures(set, resolver, event, names, warnings, has_event));
    report.sets.push_back({set.label, counts.back().total, set.periods, set.machines});
    report.total += counts.back().total;
  }
  // Sample counts scale with 1 / period: sets sampled at different rates are
  // not comparable count for count.
  std::set<SamplingPeriod> known;
  bool unknown = false;
  for (const SetTotal& set : report.sets)
    for (const auto& [epoch, period] : set.periods) {
      if (!period.known())
        unknown = true;
      else
        known.insert(period);
    }
  if (known.size() > 1 || (!known.empty() && known.begin()->changed))
    warnings.insert(
        "the sets were not all sampled with one period (see each set's period): sample "
        "counts scale with 1/period, so compare them only between sets of equal period");
  else if (!known.empty() && unknown)
    warnings.insert(
        "some sets do not record their sampling period: their counts may not be comparable");
  std::set<std::string> machines;
  for (const SetTotal& set : report.sets)
    for (const auto& [epoch, machine] : set.machines) machines.insert(machine);
  if (machines.size() > 1)
    warnings.insert(
        "the sets come from different machines (see each set's machine): a cycle of qemu "
        "(one instruction) is not a cycle of ev5 (the 21164 model), so their counts differ");
  report.warnings.assign(warnings.begin(), warnings.end());
  const bool any_samples = std::any_of(sets.begin(), sets.end(),
                                       [](const SampleSet& set) { return !set.profiles.empty(); });
  if (!has_event && any_samples) throw std::runtime_error("no samples of event '" + event + "'");
  const double set_count = static_cast<double>(sets.size());
  for (const auto& [key, name] : names) {
    ProcedureVariation row;
    row.image_path = name.first;
    row.procedure = name.second;
    for (const SetCounts& set : counts) {
      const auto found = set.by_key.find(key);
      row.per_set.push_back(found == set.by_key.end() ? 0 : found->second);
    }
    row.min = *std::min_element(row.per_set.begin(), row.per_set.end());
    row.max = *std::max_element(row.per_set.begin(), row.per_set.end());
    for (uint64_t samples : row.per_set) {
      row.sum += samples;
      row.sets_with_samples += samples != 0;
    }
    row.mean = static_cast<double>(row.sum) / set_count;
    double squares = 0;
    for (uint64_t samples : row.per_set)
      squares +=
          (static_cast<double>(samples) - row.mean) * (static_cast<double>(samples) - row.mean);
    row.std_dev = sets.size() > 1 ? std::sqrt(squares / (set_count - 1)) : 0.0;
    row.percent = percent_of(row.sum, report.total);
    row.range_percent = percent_of(row.max - row.min, row.sum);
    report.rows.push_back(std::move(row));
  }
  std::sort(report.rows.begin(), report.rows.end(),
            [](const ProcedureVariation& a, const ProcedureVariation& b) {
              if (a.range_percent != b.range_percent) return a.range_percent > b.range_percent;
              if (a.sum != b.sum) return a.sum > b.sum;
              return std::tie(a.image_path, a.procedure) < std::tie(b.image_path, b.procedure);
            });
  return report;
}

namespace {

// The procedures each image path has in `counts` (keys "path\0procedure").
std::map<std::string, std::set<std::string>> procedures_by_image(const SetCounts& counts) {
  std::map<std::string, std::set<std::string>> images;
  for (const auto& [key, samples] : counts.by_key) {
    const size_t split = key.find('\0');
    images[key.substr(0, split)].insert(key.substr(split + 1));
  }
  return images;
}

// --match name: pairs each image only `after` has with the image only
// `before` has that shares the most procedure names (at least one), and
// re-keys `after` under the before image's path.
std::vector<RenamedImage> pair_renamed_images(const SetCounts& before, SetCounts& after) {
  const auto old_images = procedures_by_image(before), new_images = procedures_by_image(after);
  std::set<std::string> taken;
  std::map<std::string, std::string> new_path_of;  // after path -> before path
  std::vector<RenamedImage> renamed;
  for (const auto& [path, procedures] : new_images) {
    if (old_images.count(path)) continue;
    const std::string* best = nullptr;
    size_t best_shared = 0;
    for (const auto& [old_path, old_procedures] : old_images) {
      if (new_images.count(old_path) || taken.count(old_path)) continue;
      size_t shared = 0;
      for (const std::string& name : procedures) shared += old_procedures.count(name);
      if (shared > best_shared) {
        best = &old_path;
        best_shared = shared;
      }
    }
    if (!best) continue;
    taken.insert(*best);
    new_path_of[path] = *best;
    renamed.push_back({*best, path, best_shared});
  }
  std::map<std::string, uint64_t> rekeyed;
  for (const auto& [key, samples] : after.by_key) {
    const size_t split = key.find('\0');
    const auto found = new_path_of.find(key.substr(0, split));
    rekeyed[found == new_path_of.end() ? key : found->second + key.substr(split)] += samples;
  }
  after.by_key = std::move(rekeyed);
  return renamed;
}

}  // namespace

DiffReport diff_sets(const SampleSet& before, const SampleSet& after, ImageResolver& resolver,
                     const std::string& event, DiffMatch match) {
  DiffReport report;
  report.event = event;
  std::map<std::string, std::pair<std::string, std::string>> names;
  std::set<std::string> warnings;
  bool has_event = false;
  const SetCounts a = count_procedures(before, resolver, event, names, warnings, has_event);
  SetCounts b = count_procedures(after, resolver, event, names, warnings, has_event);
  if (match == DiffMatch::kName) report.renamed = pair_renamed_images(a, b);
  std::map<std::string, std::string> after_path_of;  // before path -> after path
  for (const RenamedImage& image : report.renamed) after_path_of[image.before] = image.after;
  report.before = {before.label, a.total};
  report.after = {after.label, b.total};
  report.warnings.assign(warnings.begin(), warnings.end());
  if (!has_event && !(before.profiles.empty() && after.profiles.empty()))
    throw std::runtime_error("no samples of event '" + event + "'");
  std::set<std::string>
      keys;  // "path\0procedure", after's under the before path it was paired with
  for (const auto& [key, samples] : a.by_key) keys.insert(key);
  for (const auto& [key, samples] : b.by_key) keys.insert(key);
  for (const std::string& key : keys) {
    ProcedureShift row;
    row.image_path = key.substr(0, key.find('\0'));
    row.procedure = key.substr(key.find('\0') + 1);
    const auto renamed = after_path_of.find(row.image_path);
    row.after_image_path = renamed == after_path_of.end() ? row.image_path : renamed->second;
    if (auto found = a.by_key.find(key); found != a.by_key.end()) row.before = found->second;
    if (auto found = b.by_key.find(key); found != b.by_key.end()) row.after = found->second;
    if (row.before == 0 && row.after == 0) continue;
    row.before_percent = percent_of(row.before, a.total);
    row.after_percent = percent_of(row.after, b.total);
    row.change = row.after_percent - row.before_percent;
    if (row.before) row.ratio = static_cast<double>(row.after) / static_cast<double>(row.before);
    report.rows.push_back(std::move(row));
  }
  std::sort(report.rows.begin(), report.rows.end(),
            [](const ProcedureShift& x, const ProcedureShift& y) {
              if (std::abs(x.change) != std::abs(y.change))
                return std::abs(x.change) > std::abs(y.change);
              if (x.before + x.after != y.before + y.after)
                return x.before + x.after > y.before + y.after;
              return std::tie(x.image_path, x.procedure) < std::tie(y.image_path, y.procedure);
            });
  return report;
}

}  // namespace dcpi
