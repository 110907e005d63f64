#include "analysis/samples/profileme_table.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/samples/profile_table.h"
#include "firmware/profileme.h"
#include "isa/ev5_unit_latency.h"
#include "isa/print.h"

namespace dcpi {

namespace {

// The row field a pm_* event adds to (nullptr: pm_samples/pm_retired, apart).
uint64_t* field_of(ProfileMeRow& row, uint16_t event) {
  switch (event) {
    case PROFILEME_EVENT_SAMPLES:
      return &row.records;
    case PROFILEME_EVENT_RETIRED:
      return &row.retired;
    case PROFILEME_EVENT_IMISS:
      return &row.imiss;
    case PROFILEME_EVENT_ITBMISS:
      return &row.itbmiss;
    case PROFILEME_EVENT_DMISS:
      return &row.dmiss;
    case PROFILEME_EVENT_DTBMISS:
      return &row.dtbmiss;
    case PROFILEME_EVENT_MISPREDICT:
      return &row.mispredict;
    case PROFILEME_EVENT_PAL:
      return &row.pal;
    case PROFILEME_EVENT_SMISS:
      return &row.smiss;
    case PROFILEME_EVENT_BMISS:
      return &row.bmiss;
    case PROFILEME_EVENT_WBUF:
      return &row.wbuf;
    case PROFILEME_EVENT_STALL:
      return &row.stall;
    case PROFILEME_EVENT_FETCH:
      return &row.fetch;
    case PROFILEME_EVENT_ISSUE:
      return &row.issue;
    case PROFILEME_EVENT_WINDOW:
      return &row.window;
    case PROFILEME_EVENT_OVERLAP:
      return &row.overlap;
    case PROFILEME_EVENT_TRAP:
      return &row.trap;
    case PROFILEME_EVENT_REPLAY:
      return &row.replay;
    case PROFILEME_EVENT_LOAD:
      return &row.load;
    default:
      if (event >= PROFILEME_EVENT_STALL_LOG2_0 && event <= PROFILEME_EVENT_STALL_LOG2_7)
        return &row.stall_buckets[event - PROFILEME_EVENT_STALL_LOG2_0];
      if (event >= PROFILEME_EVENT_LOAD_LOG2_0 && event <= PROFILEME_EVENT_LOAD_LOG2_7)
        return &row.load_buckets[event - PROFILEME_EVENT_LOAD_LOG2_0];
      return nullptr;
  }
}

std::string disassembly(const ResolvedImage& resolved, uint64_t address) {
  if (!resolved.elf) return "";
  const std::optional<uint32_t> word = resolved.elf->instruction_at(address);
  if (!word) return "";
  char text[96];
  isa::disassemble(*word, address, text, sizeof text);
  std::string line = text;
  std::replace(line.begin(), line.end(), '\t', ' ');  // objdump's tab after the mnemonic
  return line;
}

// Issue -> completion (isa/ev5_unit_latency.h): a load's from its records'
// data latencies, any other instruction's its unit latency per retired
// record, from its word (unknown without the ELF).
void add_completion(ProfileMeRow& row, const ResolvedImage& resolved, uint16_t event,
                    const ProfileRow& stored) {
  if (event == PROFILEME_EVENT_LOAD) row.complete += stored.count;
  if (event != PROFILEME_EVENT_RETIRED) return;
  const std::optional<uint32_t> word =
      resolved.elf ? resolved.elf->instruction_at(stored.address) : std::nullopt;
  if (!word) {
    row.complete_known = false;
    return;
  }
  if (const std::optional<uint32_t> latency = isa::ev5_unit_latency(*word))
    row.complete += stored.count * *latency;
}

}  // namespace

double wasted_issue_slots(const ProfileMeRow& row, double interval, uint32_t pair_window) {
  return profileme_wasted_slots(static_cast<double>(row.window), static_cast<double>(row.overlap),
                                static_cast<double>(row.retired), interval, pair_window);
}

ProfileMeReport build_profileme_report(const SampleSet& samples, ImageResolver& resolver,
                                       const std::optional<std::string>& procedure) {
  ProfileMeReport report;
  std::map<std::tuple<std::string, std::string, uint64_t>, ProfileMeRow> rows;
  std::map<ImageIdentity, std::unordered_map<uint64_t, std::string>> names_of;
  for (const Profile& profile : samples.profiles) {
    const uint16_t event = profile.info.event;
    if (!is_profileme_event(event)) continue;
    const ImageIdentity& image = profile.info.image;
    const ResolvedImage& resolved = resolver.resolve(image);
    const EventScale scale = scale_of(samples, profile.info);
    const std::optional<double> per_record = scale.events_per_sample();
    if (report.interval == 0 && per_record) report.interval = *per_record;
    if (scale.pair_window != 0) report.pair_window = scale.pair_window;
    const std::string display = image.unknown ? "[unknown]" : image.path;
    // Every pm_* profile of the image holds the same addresses: name each once.
    std::unordered_map<uint64_t, std::string>& names = names_of[image];
    for (const ProfileRow& stored : profile.rows) {
      auto [found, added] = names.try_emplace(stored.address);
      if (added) found->second = name_procedure(image, resolved, stored.address).name;
      const std::string& name = found->second;
      if (procedure && name != *procedure) continue;
      const uint64_t address = procedure ? stored.address : 0;
      ProfileMeRow& row = rows[{display, name, address}];
      row.image = display;
      row.procedure = name;
      if (procedure) {
        row.address = stored.address;
        if (row.instruction.empty()) row.instruction = disassembly(resolved, stored.address);
      }
      if (uint64_t* field = field_of(row, event)) *field += stored.count;
      add_completion(row, resolved, event, stored);
      if (event == PROFILEME_EVENT_RETIRED)
        row.executions += static_cast<double>(stored.count) * per_record.value_or(0.0);
      if (event == PROFILEME_EVENT_SAMPLES) report.records += stored.count;
    }
  }
  for (auto& [key, row] : rows) {
    if (report.pair_window != 0 && report.interval > 0)
      row.wasted = wasted_issue_slots(row, report.interval, report.pair_window);
    report.rows.push_back(std::move(row));
  }
  std::stable_sort(report.rows.begin(), report.rows.end(),
                   [&](const ProfileMeRow& a, const ProfileMeRow& b) {
                     if (procedure) return a.address < b.address;  // a listing: in order
                     return a.records > b.records;
                   });
  return report;
}

}  // namespace dcpi
