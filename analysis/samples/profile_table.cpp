#include "analysis/samples/profile_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "profiledb/tab_text.h"

namespace dcpi {

std::string address_name(const ImageIdentity& image, uint64_t address) {
  return fmt::format("{}+{:#x}", image_display_name(image), address);
}

std::optional<size_t> event_column(const ProfileReport& report, const std::string& event) {
  const auto found = std::find(report.events.begin(), report.events.end(), event);
  if (found == report.events.end()) return std::nullopt;
  return static_cast<size_t>(found - report.events.begin());
}

std::string row_key(const ReportRow& row) { return row.image_path + '\0' + row.procedure; }

std::string source_line_text(const ReportRow& row) {
  if (row.source_line == 0) return kNoSourceLine;
  return std::filesystem::path(row.source_file).filename().string() + ":" +
         std::to_string(row.source_line);
}

std::string procedure_display_name(const ImageIdentity& image, const Procedure& procedure) {
  return procedure.source == ProcedureSource::kFrameInfo ? address_name(image, procedure.start)
                                                         : procedure.name;
}

ProcedureName name_procedure(const ImageIdentity& image, const ResolvedImage& resolved,
                             uint64_t address) {
  if (image.unknown) return {kUnknownProcedure, std::nullopt};
  if (resolved.elf)
    if (auto procedure = resolved.elf->procedure_at(address))
      return {procedure_display_name(image, *procedure), procedure->start};
  return {address_name(image, address), std::nullopt};
}

namespace {

// Columns in event-number order, so "cycles" (event 0) leads as in Figure 1.
std::vector<std::pair<uint16_t, std::string>> events_present(const SampleSet& samples) {
  std::map<uint16_t, std::string> events;
  for (const Profile& profile : samples.profiles)
    events.emplace(profile.info.event, profile.info.event_name);
  return {events.begin(), events.end()};
}

}  // namespace

namespace {

// Ours, then perf report --sort's names for the same keys.
const std::map<std::string, GroupKey>& group_keys_by_name() {
  static const std::map<std::string, GroupKey> kNames = {
      {"image", GroupKey::kImage},   {"procedure", GroupKey::kProcedure}, {"pid", GroupKey::kPid},
      {"cpu", GroupKey::kCpu},       {"line", GroupKey::kLine},           {"dso", GroupKey::kImage},
      {"sym", GroupKey::kProcedure}, {"srcline", GroupKey::kLine},        {"comm", GroupKey::kPid},
      {"tid", GroupKey::kTid}};
  return kNames;
}

}  // namespace

std::vector<std::string> group_key_names() {
  std::vector<std::string> names;
  for (const auto& [name, key] : group_keys_by_name()) names.push_back(name);
  return names;
}

std::vector<GroupKey> parse_group_keys(const std::string& text) {
  const std::map<std::string, GroupKey>& kNames = group_keys_by_name();
  std::vector<GroupKey> keys;
  for (const std::string_view name : split_fields(text, ',')) {
    const auto found = kNames.find(std::string(name));
    if (found == kNames.end())
      throw std::invalid_argument(
          "--by takes image, procedure, pid or cpu, tid (a thread), line (the source line), perf's "
          "dso, "
          "sym, comm or srcline, or several joined by commas (pid,image), not '" +
          text + "'");
    if (std::find(keys.begin(), keys.end(), found->second) == keys.end())
      keys.push_back(found->second);
  }
  return keys;
}

std::string group_keys_text(const std::vector<GroupKey>& keys) {
  static const char* kNames[] = {"image", "procedure", "pid", "cpu", "line", "tid"};
  std::string text;
  for (GroupKey key : keys) text += (text.empty() ? "" : ",") + std::string(kNames[int(key)]);
  return text;
}

namespace {

// A shared object (libc.so.6, ld-linux.so.2): a library a program loaded
// (issue 15's kMap images), not the program, unless it is all the pid ran.
bool is_shared_object(const std::string& path) {
  return std::filesystem::path(path).filename().string().find(".so") != std::string::npos;
}

}  // namespace

std::map<uint32_t, std::vector<std::string>> programs_by_pid(const SampleSet& samples) {
  std::map<uint32_t, std::vector<std::string>> programs, libraries;
  std::set<uint32_t> from_table;  // issue 29: the table names them, not the samples
  for (const auto& [epoch, table] : samples.processes)
    for (const auto& [pid, process] : table.processes) {
      if (process.program.empty()) continue;
      std::vector<std::string>& names = programs[pid];
      if (std::find(names.begin(), names.end(), process.program) == names.end())
        names.push_back(process.program);
      from_table.insert(pid);
    }
  for (const Profile& profile : samples.profiles) {
    const ImageIdentity& image = profile.info.image;
    if (image.unknown || !image.path.starts_with('/')) continue;
    auto& into = is_shared_object(image.path) ? libraries : programs;
    for (const ProfileRow& row : profile.rows) {
      if (row.pid == 0 || from_table.count(row.pid)) continue;  // the kernel's own; named
      std::vector<std::string>& names = into[row.pid];
      if (std::find(names.begin(), names.end(), image.path) == names.end())
        names.push_back(image.path);
    }
  }
  for (auto& [pid, names] : libraries) programs.try_emplace(pid, std::move(names));
  return programs;
}

std::string pid_label(uint32_t pid, const std::map<uint32_t, std::vector<std::string>>& programs) {
  if (pid == 0) return "0:[kernel]";
  const auto found = programs.find(pid);
  if (found == programs.end()) return std::to_string(pid);
  std::string label = std::to_string(pid) + ":";
  for (size_t i = 0; i < found->second.size(); ++i)
    label += (i ? "," : "") + std::filesystem::path(found->second[i]).filename().string();
  return label;
}

std::map<uint32_t, std::string> thread_names(const SampleSet& samples) {
  std::map<uint32_t, std::string> names;
  for (const auto& [epoch, table] : samples.processes)
    for (const auto& [tid, thread] : table.threads) names[tid] = thread.name;
  return names;
}

std::string tid_label(uint32_t tid, const std::map<uint32_t, std::string>& names) {
  if (tid == 0) return "0:[kernel]";
  const auto found = names.find(tid);
  if (found == names.end() || found->second.empty()) return std::to_string(tid);
  return std::to_string(tid) + ":" + found->second;
}

ProfileReport build_report(const SampleSet& samples, ImageResolver& resolver, Grouping grouping) {
  return build_report(samples, resolver,
                      std::vector<GroupKey>{grouping == Grouping::kImage ? GroupKey::kImage
                                                                         : GroupKey::kProcedure});
}

namespace {

struct RowKey {
  ImageIdentity image;  // empty unless grouped by image, procedure or line
  std::string procedure;
  std::string source_file;
  int source_line = 0;
  int64_t pid = -1;  // -1: not grouped by it
  int64_t cpu = -1;
  int64_t tid = -1;
  auto operator<=>(const RowKey&) const = default;
};

bool has_key(const std::vector<GroupKey>& keys, GroupKey key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

void sort_rows(ProfileReport& report) {
  std::sort(report.rows.begin(), report.rows.end(), [](const ReportRow& a, const ReportRow& b) {
    if (a.samples != b.samples)
      return std::lexicographical_compare(b.samples.begin(), b.samples.end(), a.samples.begin(),
                                          a.samples.end());
    return std::tie(a.image, a.procedure, a.source_file, a.source_line, a.pid, a.cpu, a.tid) <
           std::tie(b.image, b.procedure, b.source_file, b.source_line, b.pid, b.cpu, b.tid);
  });
  std::map<std::string, std::string> build_id_of;
  for (const ReportRow& row : report.rows) {
    if (row.image.empty()) continue;
    const auto [entry, added] = build_id_of.emplace(row.image_path, row.build_id);
    if (!added && entry->second != row.build_id) report.build_ids_needed = true;
    if (row.image_path == "[unknown]" && !row.samples.empty())
      report.unknown_samples += row.samples[0];
  }
}

// Issue 26: how `column`'s samples were scaled, the same in every epoch or not.
void note_scale(ProfileReport& report, size_t column, const EventScale& scale) {
  if (!scale.events_per_sample()) report.estimated_known[column] = false;
  const std::string note = describe_scale(scale, report.events[column]);
  std::string& kept = report.scale_notes[column];
  if (kept.empty())
    kept = note;
  else if (kept != note)
    kept = "varies by epoch";
}

}  // namespace

ProfileReport build_report(const SampleSet& samples, ImageResolver& resolver,
                           const std::vector<GroupKey>& keys) {
  ProfileReport report;
  report.keys = keys;
  const bool by_procedure = has_key(keys, GroupKey::kProcedure);
  const bool by_line = has_key(keys, GroupKey::kLine);
  const bool by_image = by_procedure || by_line || has_key(keys, GroupKey::kImage);
  const bool by_tid = has_key(keys, GroupKey::kTid);
  // A thread is shown with its process.
  const bool by_pid = has_key(keys, GroupKey::kPid) || by_tid;
  const bool by_cpu = has_key(keys, GroupKey::kCpu);
  if (by_pid) report.programs = programs_by_pid(samples);
  if (by_tid) report.thread_names = thread_names(samples);
  const auto events = events_present(samples);
  std::map<uint16_t, size_t> column_of;
  for (const auto& [number, name] : events) {
    column_of[number] = report.events.size();
    report.events.push_back(name);
  }
  report.totals.assign(report.events.size(), 0);
  report.estimated_totals.assign(report.events.size(), 0.0);
  report.estimated_known.assign(report.events.size(), true);
  report.scale_notes.assign(report.events.size(), "");

  std::map<RowKey, size_t> row_of;
  auto row_index = [&](RowKey key, const ProcedureName& procedure) {
    const auto [entry, added] = row_of.emplace(std::move(key), report.rows.size());
    if (added) {
      const RowKey& k = entry->first;
      ReportRow row;
      row.samples.assign(report.events.size(), 0);
      row.estimated.assign(report.events.size(), 0.0);
      if (by_image) {
        row.image = image_display_name(k.image);
        row.image_path = k.image.unknown ? "[unknown]" : k.image.path;
        row.build_id = k.image.build_id;
      }
      row.procedure = k.procedure;
      row.source_file = k.source_file;
      row.source_line = k.source_line;
      row.start = procedure.start;
      if (by_pid) row.pid = static_cast<uint32_t>(k.pid);
      if (by_cpu) row.cpu = static_cast<uint32_t>(k.cpu);
      if (by_tid) row.tid = static_cast<uint32_t>(k.tid);
      report.rows.push_back(std::move(row));
    }
    return entry->second;
  };

  std::map<ImageIdentity, bool> warned;
  for (const Profile& profile : samples.profiles) {
    const ImageIdentity& image = profile.info.image;
    const size_t column = column_of.at(profile.info.event);
    const EventScale scale = scale_of(samples, profile.info);
    const double per_sample = scale.events_per_sample().value_or(0.0);
    note_scale(report, column, scale);
    const ResolvedImage& resolved = resolver.resolve(image);
    if (by_image && !resolved.warning.empty() && !warned[image]) {
      warned[image] = true;
      report.warnings.push_back(resolved.warning);
    }
    // The same address recurs once per (pid, cpu): name it once, and, when
    // the rows do not split by pid or CPU, find its row once.
    std::unordered_map<uint64_t, ProcedureName> name_of_address;
    std::unordered_map<uint64_t, SourceLocation> line_of_address;
    std::unordered_map<uint64_t, size_t> row_of_address;
    const ProcedureName whole{image.unknown && by_procedure ? kUnknownProcedure : "", {}};
    auto index_of = [&](const ProfileRow& row) {
      const ProcedureName* name = &whole;
      if (by_procedure && !image.unknown) {
        auto [entry, added] = name_of_address.try_emplace(row.address);
        if (added) entry->second = name_procedure(image, resolved, row.address);
        name = &entry->second;
      }
      SourceLocation line{by_line ? kNoSourceLine : "", 0};
      if (by_line && resolved.elf) {
        auto [entry, added] = line_of_address.try_emplace(row.address);
        if (added) entry->second = resolved.elf->source_at(row.address).value_or(line);
        line = entry->second;
      }
      return row_index({by_image ? image : ImageIdentity{}, name->name, line.file, line.line,
                        by_pid ? int64_t{row.pid} : -1, by_cpu ? int64_t{row.cpu} : -1,
                        by_tid ? int64_t{row.tid} : -1},
                       *name);
    };
    for (const ProfileRow& row : profile.rows) {
      size_t index;
      if (by_pid || by_cpu) {
        index = index_of(row);
      } else {
        auto [entry, added] = row_of_address.try_emplace(by_procedure || by_line ? row.address : 0);
        if (added) entry->second = index_of(row);
        index = entry->second;
      }
      report.rows[index].samples[column] += row.count;
      report.rows[index].estimated[column] += static_cast<double>(row.count) * per_sample;
      report.totals[column] += row.count;
      report.estimated_totals[column] += static_cast<double>(row.count) * per_sample;
    }
  }
  sort_rows(report);
  return report;
}

}  // namespace dcpi
