#include "profiledb/profile_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>
#include <sstream>
#include <tuple>

#include "firmware/crc32c.h"
#include "firmware/events.h"
#include "firmware/profileme.h"
#include "profiledb/container.h"

namespace dcpi {

ProfileFormatError::ProfileFormatError(std::string path, uint64_t offset,
                                       const std::string& problem)
    : std::runtime_error(path + ": at offset " + std::to_string(offset) + ": " + problem),
      path_(std::move(path)),
      offset_(offset),
      problem_(problem) {}

namespace profile_format {
namespace {

using namespace profiledb;

constexpr ContainerKind kProfileKind{"profile",
                                     {kProfileMagic, sizeof kProfileMagic},
                                     kProfileVersion,
                                     kTrailerMagic,
                                     kFixedHeaderBytes};

FixedHeader decode_fixed_header(std::span<const uint8_t> bytes, const std::string& path) {
  (void)check_prefix(bytes, path, kProfileKind);
  FixedHeader header;
  std::memcpy(&header, bytes.data(), sizeof header);
  check_header_bytes(header.prefix, kProfileKind,
                     uint64_t{header.build_id_chars} + header.path_bytes + header.event_name_bytes,
                     bytes, path);
  if (header.flags & ~kFlagUnknownImage)
    throw ProfileFormatError(path, offsetof(FixedHeader, flags),
                             "unknown flags " + std::to_string(header.flags));
  return header;
}

ProfileInfo info_from_header(const FixedHeader& header, std::span<const uint8_t> bytes,
                             const std::string& path) {
  Cursor cursor(bytes, kFixedHeaderBytes, header.prefix.header_bytes, path);
  ProfileInfo info;
  info.file = path;
  info.image.build_id = cursor.text(header.build_id_chars, "build-id");
  if (!is_lower_hex(info.image.build_id))
    cursor.fail(kFixedHeaderBytes, "build-id is not lower-case hex");
  info.image.path = cursor.text(header.path_bytes, "path");
  info.event_name = cursor.text(header.event_name_bytes, "event name");
  info.image.image_size = header.image_size;
  info.image.unknown = header.flags & kFlagUnknownImage;
  info.event = header.event;
  info.row_count = header.row_count;
  info.total_count = header.total_count;
  return info;
}

}  // namespace

std::string event_name(uint16_t event) {
  static constexpr const char* kProfileMeNames[] = {PROFILEME_EVENT_LIST(PROFILEME_EVENT_TEXT_)};
  if (event < static_cast<uint16_t>(Event::kCount)) return kEventNames[event];
  if (event >= PROFILEME_EVENT_BASE && event < PROFILEME_EVENT_END)
    return kProfileMeNames[event - PROFILEME_EVENT_BASE];
  return "event" + std::to_string(event);
}

std::vector<uint8_t> encode_profile(const ProfileInfo& info, std::span<const ProfileRow> rows) {
  const std::string& build_id = info.image.build_id;
  const std::string& path = info.image.path;
  const std::string& name = info.event_name;
  if (build_id.size() > kMaxStringBytes || path.size() > kMaxStringBytes ||
      name.size() > kMaxStringBytes)
    throw std::length_error("profile header string longer than " + std::to_string(kMaxStringBytes) +
                            " bytes");
  FixedHeader header{};
  header.prefix = make_prefix(kProfileKind, build_id.size() + path.size() + name.size());
  header.event = info.event;
  header.flags = info.image.unknown ? kFlagUnknownImage : 0;
  header.image_size = info.image.image_size;
  header.row_count = rows.size();
  header.build_id_chars = static_cast<uint16_t>(build_id.size());
  header.path_bytes = static_cast<uint16_t>(path.size());
  header.event_name_bytes = static_cast<uint16_t>(name.size());

  std::vector<uint8_t> body;
  body.reserve(rows.size() * 3 + 16);
  for (size_t i = 0; i < rows.size();) {
    size_t end = i + 1;
    while (end < rows.size() && rows[end].pid == rows[i].pid && rows[end].cpu == rows[i].cpu) ++end;
    put_varint(body, rows[i].pid);
    put_varint(body, rows[i].cpu);
    put_varint(body, end - i);
    uint64_t previous = 0;
    for (size_t r = i; r < end; ++r) {
      if (rows[r].count == 0 || (r > i && rows[r].address <= previous) ||
          (i > 0 && r == i &&
           std::tie(rows[i - 1].pid, rows[i - 1].cpu) >= std::tie(rows[i].pid, rows[i].cpu)))
        throw std::logic_error("encode_profile: rows not sorted, unique and non-zero");
      put_varint(body, rows[r].address - previous);
      put_varint(body, rows[r].count);
      previous = rows[r].address;
      header.total_count += rows[r].count;
    }
    ++header.group_count;
    i = end;
  }

  std::vector<uint8_t> out;
  out.reserve(header.prefix.header_bytes + body.size() + kTrailerBytes);
  append_bytes(out, &header, sizeof header);
  append_bytes(out, build_id.data(), build_id.size());
  append_bytes(out, path.data(), path.size());
  append_bytes(out, name.data(), name.size());
  out.insert(out.end(), body.begin(), body.end());
  seal(out, kProfileKind);
  return out;
}

ProfileInfo decode_profile_info(std::span<const uint8_t> bytes, const std::string& path) {
  return info_from_header(decode_fixed_header(bytes, path), bytes, path);
}

Profile decode_profile(std::span<const uint8_t> bytes, const std::string& path) {
  const FixedHeader header = decode_fixed_header(bytes, path);
  Profile profile;
  profile.info = info_from_header(header, bytes, path);
  const size_t trailer = check_trailer(bytes, header.prefix.header_bytes, path, kProfileKind);
  Cursor cursor(bytes, header.prefix.header_bytes, trailer, path);
  // Every row takes at least 2 bytes: never trust row_count for the allocation.
  if (header.row_count > cursor.remaining() / 2)
    cursor.fail(32, "row count " + std::to_string(header.row_count) + " exceeds the file size");
  profile.rows.reserve(header.row_count);
  uint64_t total = 0;
  for (uint64_t group = 0; group < header.group_count; ++group) {
    const size_t group_start = cursor.position();
    const uint64_t pid = cursor.varint("pid");
    const uint64_t cpu = cursor.varint("cpu");
    const uint64_t rows = cursor.varint("row count");
    if (pid > std::numeric_limits<uint32_t>::max() || cpu > std::numeric_limits<uint32_t>::max())
      cursor.fail(group_start, "pid or cpu out of range");
    if (rows == 0 || rows > header.row_count - profile.rows.size())
      cursor.fail(group_start, "bad group row count " + std::to_string(rows));
    if (!profile.rows.empty() && std::pair(profile.rows.back().pid, profile.rows.back().cpu) >=
                                     std::pair(uint32_t(pid), uint32_t(cpu)))
      cursor.fail(group_start, "groups not sorted by (pid, cpu) or not unique");
    uint64_t address = 0;
    for (uint64_t r = 0; r < rows; ++r) {
      const size_t row_start = cursor.position();
      const uint64_t delta = cursor.varint("address delta");
      const uint64_t count = cursor.varint("count");
      if (r > 0 && delta == 0) cursor.fail(row_start, "duplicate address (rows not unique)");
      if (delta > std::numeric_limits<uint64_t>::max() - address)
        cursor.fail(row_start, "address overflows 64 bits");
      if (count == 0) cursor.fail(row_start, "row with count 0");
      if (count > std::numeric_limits<uint64_t>::max() - total)
        cursor.fail(row_start, "total count overflows 64 bits");
      address += delta;
      total += count;
      profile.rows.push_back(
          {static_cast<uint32_t>(pid), static_cast<uint32_t>(cpu), address, count});
    }
  }
  if (cursor.remaining() != 0)
    cursor.fail(cursor.position(), "trailing bytes after the last row group");
  if (profile.rows.size() != header.row_count)
    cursor.fail(32, "header says " + std::to_string(header.row_count) + " rows, found " +
                        std::to_string(profile.rows.size()));
  if (total != header.total_count)
    cursor.fail(40, "header total " + std::to_string(header.total_count) +
                        " differs from the rows' sum " + std::to_string(total));
  return profile;
}

const std::vector<std::string>& driver_stat_names() {
  static const std::vector<std::string> names = {
      "cpu",
      "interrupts",
      "hits",
      "misses",
      "evictions",
      "overflow_switches",
      "samples_to_daemon",
      "entries_to_daemon",
      "dropped_both_buffers_full",
      "dropped_uncounted_event",
      "dropped_reason2",
      "dropped_reason3",
      "handler_cycles",
      "flushes",
  };
  return names;
}

std::string counted_cycles_stat_name(uint32_t event) {
  return "counted_cycles_" + event_name(static_cast<uint16_t>(event));
}

bool is_driver_stat_name(std::string_view name) {
  const auto& names = driver_stat_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) return true;
  if (name == "profileme_mean" || name == "profileme_pair_window") return true;  // issue 27
  if (name == "event_kill") return true;  // issue 26: counters 1 and 2's kill bits
  // The CPU's cycles running threads and its own share of them (profiledb/own_cycles.h).
  if (name == "thread_cycles" || name == "own_cycles") return true;
  for (uint32_t e = 0; e < static_cast<uint32_t>(Event::kCount); ++e)
    if (name == counted_cycles_stat_name(e)) return true;
  return false;
}

namespace {

struct MetaField {
  const char* name;
  uint64_t EpochMetadata::*field;
};
constexpr MetaField kMetaFields[] = {
    {"epoch", &EpochMetadata::epoch},
    {"start_time", &EpochMetadata::start_time},
    {"samples", &EpochMetadata::samples},
    {"unknown_samples", &EpochMetadata::unknown_samples},
    {"entries", &EpochMetadata::entries},
    {"records", &EpochMetadata::records},
    {"records_rejected", &EpochMetadata::records_rejected},
    {"records_lost", &EpochMetadata::records_lost},
    {"ring_records_dropped", &EpochMetadata::ring_records_dropped},
    {"ring_samples_dropped", &EpochMetadata::ring_samples_dropped},
    {"updates", &EpochMetadata::updates},
};

// Optional keys (absent in databases written before the period was recorded:
// then the period is unknown).
constexpr const char* kPeriodFields[] = {"period_base", "period_range", "period_changed"};
// Optional too (issue 14): absent in databases from before it was recorded,
// whose samples all come from the qemu machine.
constexpr std::string_view kMachineField = "machine";

bool parse_u64(std::string_view text, uint64_t& value) {
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && result.ec == std::errc() && result.ptr == text.data() + text.size();
}

}  // namespace

// Text so that a person can read it with cat; the last line checksums the rest.
std::string encode_epoch_metadata(const EpochMetadata& metadata) {
  std::ostringstream out;
  out << kEpochMetaMagicLine << '\n';
  for (const MetaField& field : kMetaFields)
    out << field.name << ' ' << metadata.*field.field << '\n';
  out << kPeriodFields[0] << ' ' << metadata.period.base << '\n'
      << kPeriodFields[1] << ' ' << metadata.period.range << '\n'
      << kPeriodFields[2] << ' ' << (metadata.period.changed ? 1 : 0) << '\n';
  out << kMachineField << ' ' << metadata.machine << '\n';
  for (const auto& [cpu, stats] : metadata.cpu_stats)
    for (const auto& [name, value] : stats)
      out << "cpu " << cpu << ' ' << name << ' ' << value << '\n';
  std::string text = out.str();
  return text + "crc32c " + fmt::format("{:08x}", crc32c(text.data(), text.size())) + '\n';
}

EpochMetadata decode_epoch_metadata(std::string_view text, const std::string& path) {
  const size_t crc_line = text.rfind("crc32c ");
  if (crc_line == std::string_view::npos || (crc_line > 0 && text[crc_line - 1] != '\n'))
    throw ProfileFormatError(path, text.size(), "missing crc32c line (truncated?)");
  const std::string_view expected = text.substr(crc_line + 7);
  if (expected != fmt::format("{:08x}", crc32c(text.data(), crc_line)) + "\n")
    throw ProfileFormatError(path, crc_line, "checksum mismatch (corrupt metadata)");
  const std::string_view magic_line = kEpochMetaMagicLine;
  if (!text.starts_with(std::string(magic_line) + "\n"))
    throw ProfileFormatError(path, 0, "not an epoch metadata file (or unsupported version)");

  EpochMetadata metadata;
  std::vector<bool> seen(std::size(kMetaFields), false);
  uint64_t period[std::size(kPeriodFields)] = {};
  bool period_seen[std::size(kPeriodFields)] = {};
  bool machine_seen = false;
  size_t position = magic_line.size() + 1;
  while (position < crc_line) {
    const size_t end = text.find('\n', position);
    const std::string_view line = text.substr(position, end - position);
    std::vector<std::string_view> words;
    for (size_t at = 0; at <= line.size();) {
      const size_t space = std::min(line.find(' ', at), line.size());
      words.push_back(line.substr(at, space - at));
      at = space + 1;
    }
    uint64_t value = 0;
    bool ok = false;
    if (words.size() == 2) {
      for (size_t i = 0; i < std::size(kMetaFields); ++i)
        if (words[0] == kMetaFields[i].name && !seen[i] && parse_u64(words[1], value)) {
          metadata.*kMetaFields[i].field = value;
          seen[i] = ok = true;
        }
      for (size_t i = 0; i < std::size(kPeriodFields); ++i)
        if (words[0] == kPeriodFields[i] && !period_seen[i] && parse_u64(words[1], value)) {
          period[i] = value;
          period_seen[i] = ok = true;
        }
      if (words[0] == kMachineField && !machine_seen) {
        if (!is_machine_name(words[1]))
          throw ProfileFormatError(
              path, position,
              "unknown machine '" + std::string(words[1].substr(0, 32)) + "' (qemu or ev5)");
        metadata.machine = std::string(words[1]);
        machine_seen = ok = true;
      }
    } else if (words.size() == 4 && words[0] == "cpu") {
      uint64_t cpu = 0;
      ok = parse_u64(words[1], cpu) && cpu <= std::numeric_limits<uint32_t>::max() &&
           is_driver_stat_name(words[2]) && parse_u64(words[3], value);
      if (ok) metadata.cpu_stats[static_cast<uint32_t>(cpu)][std::string(words[2])] = value;
    }
    if (!ok)
      throw ProfileFormatError(path, position,
                               "bad line '" + std::string(line.substr(0, 80)) + "'");
    position = end + 1;
  }
  for (size_t i = 0; i < seen.size(); ++i)
    if (!seen[i])
      throw ProfileFormatError(path, crc_line,
                               std::string("missing field '") + kMetaFields[i].name + "'");
  if (metadata.unknown_samples > metadata.samples)
    throw ProfileFormatError(path, 0, "unknown_samples exceeds samples");
  if (period_seen[0] != period_seen[1] || period_seen[0] != period_seen[2])
    throw ProfileFormatError(path, crc_line,
                             "period_base, period_range and period_changed come together");
  if (period[2] > 1) throw ProfileFormatError(path, 0, "period_changed must be 0 or 1");
  if (period[0] == 0 && (period[1] != 0 || period[2] != 0))
    throw ProfileFormatError(path, 0, "period_range or period_changed without a period_base");
  // Issue 18: a mean period of 4.6e18 must not flow into stats and calc.
  if (period[0] > kMaxPeriodCycles || period[1] > kMaxPeriodCycles - period[0])
    throw ProfileFormatError(path, 0,
                             "period_base + period_range exceed the 16-bit counter (" +
                                 std::to_string(kMaxPeriodCycles) + " cycles)");
  metadata.period = SamplingPeriod{period[0], period[1], period[2] == 1};
  return metadata;
}

std::string profile_file_name(const ImageIdentity& image, const std::string& event) {
  if (image.unknown) return "unknown." + event + kProfileSuffix;
  std::string base = image.path.substr(image.path.find_last_of('/') + 1);
  if (base.empty()) base = "image";
  if (base.size() > 48) base.resize(48);
  for (char& c : base)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  const std::string identity = image.build_id + '\0' + image.path;
  return base + "-" + fmt::format("{:08x}", crc32c(identity.data(), identity.size())) + "." +
         event + kProfileSuffix;
}

}  // namespace profile_format
}  // namespace dcpi
