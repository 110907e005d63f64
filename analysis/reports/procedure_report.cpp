#include "analysis/reports/procedure_report.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/reports/report_output.h"

namespace dcpi {

std::string address_name(const ImageIdentity& image, uint64_t address) {
  return image_display_name(image) + "+" + hex_address(address);
}

std::optional<size_t> event_column(const ProfileReport& report, const std::string& event) {
  const auto found = std::find(report.events.begin(), report.events.end(), event);
  if (found == report.events.end()) return std::nullopt;
  return static_cast<size_t>(found - report.events.begin());
}

std::string row_key(const ReportRow& row) { return row.image_path + '\0' + row.procedure; }

namespace {

struct ProcedureName {
  std::string name;
  std::optional<uint64_t> start;
};

ProcedureName name_procedure(const ImageIdentity& image, const ResolvedImage& resolved,
                             uint64_t address) {
  if (image.unknown) return {kUnknownProcedure, std::nullopt};
  if (resolved.elf)
    if (auto procedure = resolved.elf->procedure_at(address))
      return {procedure->name, procedure->start};
  return {address_name(image, address), std::nullopt};
}

// Columns in event-number order, so "cycles" (event 0) leads as in Figure 1.
std::vector<std::pair<uint16_t, std::string>> events_present(const SampleSet& samples) {
  std::map<uint16_t, std::string> events;
  for (const Profile& profile : samples.profiles)
    events.emplace(profile.info.event, profile.info.event_name);
  return {events.begin(), events.end()};
}

}  // namespace

ProfileReport build_report(const SampleSet& samples, ImageResolver& resolver, Grouping grouping) {
  ProfileReport report;
  const auto events = events_present(samples);
  std::map<uint16_t, size_t> column_of;
  for (const auto& [number, name] : events) {
    column_of[number] = report.events.size();
    report.events.push_back(name);
  }
  report.totals.assign(report.events.size(), 0);

  std::map<std::tuple<ImageIdentity, std::string>, size_t> row_of;
  auto row_index = [&](const ImageIdentity& image, const ProcedureName& procedure) {
    const auto [entry, added] =
        row_of.emplace(std::make_tuple(image, procedure.name), report.rows.size());
    if (added)
      report.rows.push_back({image_display_name(image), image.unknown ? "[unknown]" : image.path,
                             procedure.name, procedure.start,
                             std::vector<uint64_t>(report.events.size(), 0)});
    return entry->second;
  };

  std::map<ImageIdentity, bool> warned;
  for (const Profile& profile : samples.profiles) {
    const ImageIdentity& image = profile.info.image;
    const size_t column = column_of.at(profile.info.event);
    const ResolvedImage& resolved = resolver.resolve(image);
    if (!resolved.warning.empty() && !warned[image]) {
      warned[image] = true;
      report.warnings.push_back(resolved.warning);
    }
    if (grouping == Grouping::kImage || image.unknown) {
      const ProcedureName whole{grouping == Grouping::kImage ? "" : kUnknownProcedure, {}};
      uint64_t total = 0;
      for (const ProfileRow& row : profile.rows) total += row.count;
      report.rows[row_index(image, whole)].samples[column] += total;
      report.totals[column] += total;
      continue;
    }
    // The same address recurs once per (pid, cpu): name it once.
    std::unordered_map<uint64_t, size_t> row_of_address;
    for (const ProfileRow& row : profile.rows) {
      auto [entry, added] = row_of_address.emplace(row.address, 0);
      if (added) entry->second = row_index(image, name_procedure(image, resolved, row.address));
      report.rows[entry->second].samples[column] += row.count;
      report.totals[column] += row.count;
    }
  }

  std::sort(report.rows.begin(), report.rows.end(), [](const ReportRow& a, const ReportRow& b) {
    if (a.samples != b.samples)
      return std::lexicographical_compare(b.samples.begin(), b.samples.end(), a.samples.begin(),
                                          a.samples.end());
    return std::tie(a.image, a.procedure) < std::tie(b.image, b.procedure);
  });
  for (const ReportRow& row : report.rows)
    if (row.image_path == "[unknown]" && !row.samples.empty())
      report.unknown_samples += row.samples[0];
  return report;
}

}  // namespace dcpi
