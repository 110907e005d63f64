#include "hostdump/load_map_model.h"

#include <algorithm>
#include <cstring>

namespace dcpi {

std::string build_id_hex(const LoadMapRecord& record) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  const uint32_t bytes = std::min(record.build_id_bytes, kBuildIdMax);
  for (uint32_t i = 0; i < bytes; ++i) {
    hex += kDigits[record.build_id[i] >> 4];
    hex += kDigits[record.build_id[i] & 0xf];
  }
  return hex;
}

uint32_t LoadMapModel::intern_image(const LoadMapRecord& record) {
  std::string build_id = build_id_hex(record);
  std::string path(record.path, strnlen(record.path, kImagePathMax));
  auto key = std::pair(build_id, path);
  const auto found = image_ids_.find(key);
  if (found != image_ids_.end()) {
    ImageIdentity& image = images_[found->second];
    image.image_size = std::max(image.image_size, record.size);
    return found->second;
  }
  const auto id = static_cast<uint32_t>(images_.size());
  images_.push_back({std::move(build_id), std::move(path), record.size, false});
  image_ids_.emplace(std::move(key), id);
  return id;
}

// Keeps `mappings` sorted and disjoint: whatever the new one overlaps goes.
void LoadMapModel::insert_mapping(std::vector<Mapping>& mappings, const Mapping& mapping) {
  std::erase_if(mappings, [&](const Mapping& old) {
    return old.load_address < mapping.end && mapping.load_address < old.end;
  });
  const auto at =
      std::lower_bound(mappings.begin(), mappings.end(), mapping.load_address,
                       [](const Mapping& m, uint64_t address) { return m.load_address < address; });
  mappings.insert(at, mapping);
}

const LoadMapModel::Mapping* LoadMapModel::find(const std::vector<Mapping>& mappings, uint64_t pc) {
  auto after =
      std::upper_bound(mappings.begin(), mappings.end(), pc,
                       [](uint64_t address, const Mapping& m) { return address < m.load_address; });
  if (after == mappings.begin()) return nullptr;
  const Mapping& candidate = *(after - 1);
  return pc < candidate.end ? &candidate : nullptr;
}

bool LoadMapModel::apply(const LoadMapRecord& record) {
  const auto kind = static_cast<LoadKind>(record.kind);
  if (kind == LoadKind::kCounts) {  // counting mode (issue 26 item 4): no path
    const bool ok = apply_counts_record(record);
    ++(ok ? applied_records_ : rejected_records_);
    return ok;
  }
  if (kind == LoadKind::kExit || kind == LoadKind::kFork || kind == LoadKind::kThread ||
      kind == LoadKind::kThreadName || kind == LoadKind::kThreadExit ||
      kind == LoadKind::kCommand) {
    if (!apply_table_record(record)) {
      ++rejected_records_;
      return false;
    }
    ++applied_records_;
    return true;
  }
  const bool known_kind = kind == LoadKind::kExec || kind == LoadKind::kMap ||
                          kind == LoadKind::kKernel || kind == LoadKind::kPalcode;
  // Issue 18: every size and path is checked before it names a file or a range.
  const bool range_ok = record.size != 0 &&
                        record.load_address + record.size > record.load_address &&
                        record.link_address + record.size > record.link_address;
  const size_t path_length = strnlen(record.path, kImagePathMax);
  bool path_ok = path_length > 0 && path_length < kImagePathMax;
  for (size_t i = 0; i < path_length; ++i)
    path_ok &= static_cast<unsigned char>(record.path[i]) >= 0x20 && record.path[i] != 0x7f;
  const bool strings_ok = path_ok && record.build_id_bytes <= kBuildIdMax;
  if (!known_kind || !range_ok || !strings_ok) {
    ++rejected_records_;
    return false;
  }
  const Mapping mapping{record.load_address, record.load_address + record.size, record.link_address,
                        intern_image(record)};
  if (kind == LoadKind::kExec || kind == LoadKind::kMap) {
    // A new program for the pid (a reused pid, or execve) replaces its images.
    Process& process =
        kind == LoadKind::kExec ? begin_space(record.pid, {}) : processes_[record.pid];
    if (kind == LoadKind::kExec) note_program(record);
    insert_mapping(process.mappings, mapping);
    remember_space(record.pid);
  } else {
    insert_mapping(global_, mapping);
  }
  ++applied_records_;
  return true;
}

LoadMapModel::Process& LoadMapModel::begin_space(uint32_t pid, std::vector<Mapping> mappings) {
  Process& process = processes_[pid];
  const uint32_t spaces = process.spaces;
  process = Process{.mappings = std::move(mappings), .exited = false, .spaces = spaces + 1};
  return process;
}

void LoadMapModel::remember_space(uint32_t pid) {
  const Process& process = processes_[pid];
  if (process.spaces > 0) spaces_[{pid, process.spaces - 1}] = process.mappings;
}

std::vector<LoadMapModel::SpaceImage> LoadMapModel::space_images() const {
  std::vector<SpaceImage> out;
  for (const auto& [space, mappings] : spaces_)
    for (const Mapping& m : mappings)
      out.push_back({space.first, space.second, m.load_address, m.end - m.load_address,
                     m.link_address, m.image_id});
  return out;
}

std::optional<Placement> LoadMapModel::place(uint32_t tid, uint64_t pc) const {
  const uint32_t pid = table_.process_of(tid);
  const Mapping* mapping = nullptr;
  if (const auto process = processes_.find(pid); process != processes_.end())
    mapping = find(process->second.mappings, pc);
  if (!mapping) mapping = find(global_, pc);
  if (!mapping) return std::nullopt;
  return Placement{mapping->image_id, pc - mapping->load_address + mapping->link_address};
}

bool LoadMapModel::has_exited(uint32_t pid) const {
  const auto process = processes_.find(pid);
  return process != processes_.end() && process->second.exited;
}

}  // namespace dcpi
