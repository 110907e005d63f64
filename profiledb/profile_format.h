// The .prof codec and the epoch.meta text format (docs/profile-db.md), shared
// by the reader (profile_db.h), the writer (profile_db_writer.h) and the
// checker (db_check.h). The framing .prof shares with .vals is container.h.
// Pure functions over byte buffers.
#pragma once
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profiledb/container.h"
#include "profiledb/profile_db.h"

namespace dcpi::profile_format {

inline constexpr char kProfileMagic[8] = {'D', 'C', 'P', 'I', 'P', 'R', 'O', 'F'};
inline constexpr uint32_t kProfileVersion = 1;
inline constexpr uint32_t kTrailerMagic = 0x45504344u;  // "DCPE"
inline constexpr uint32_t kFixedHeaderBytes = 64;
inline constexpr uint16_t kFlagUnknownImage = 1;
inline constexpr const char* kEpochMetaName = "epoch.meta";
inline constexpr const char* kEpochMetaMagicLine = "dcpi-epoch-meta 1";
inline constexpr const char* kLockName = "LOCK";
// Recordings already merged by `dcpi ingest --from-file`, one identity a line
// (issue 18: ingesting the same recording twice must not double its counts).
inline constexpr const char* kRecordingsName = "RECORDINGS";
// Marks a directory as a database (and its format version).
inline constexpr const char* kFormatName = "FORMAT";
inline constexpr const char* kFormatText = "dcpi profile database 1\n";
// Counter 0 is 16 bits (DCPI §4.1.1): a sampling period is at most 64K cycles,
// so period_base + period_range never exceeds it.
inline constexpr uint64_t kMaxPeriodCycles = 65536;
inline constexpr const char* kProfileSuffix = ".prof";

// Fixed part of the header, after the container prefix (container.h).
// Strings follow it: build-id hex, path, event name.
struct FixedHeader {
  profiledb::ContainerPrefix prefix;  // "DCPIPROF", kProfileVersion, header_bytes
  uint16_t event;
  uint16_t flags;
  uint32_t reserved;
  uint64_t image_size;
  uint64_t row_count;
  uint64_t total_count;
  uint64_t group_count;  // runs of rows with the same (pid, cpu)
  uint16_t build_id_chars;
  uint16_t path_bytes;
  uint16_t event_name_bytes;
  uint16_t reserved2;
};
static_assert(sizeof(FixedHeader) == kFixedHeaderBytes);

// Encodes a whole file. `rows` must be sorted by (pid, cpu, address), unique,
// with count >= 1 (the writer guarantees it; checked with std::logic_error).
std::vector<uint8_t> encode_profile(const ProfileInfo& info, std::span<const ProfileRow> rows);

// Decodes and validates; `path` only names the file in errors.
Profile decode_profile(std::span<const uint8_t> bytes, const std::string& path);
// Header only (fixed part + strings); does not verify rows or the checksum.
ProfileInfo decode_profile_info(std::span<const uint8_t> bytes, const std::string& path);

std::string encode_epoch_metadata(const EpochMetadata& metadata);
EpochMetadata decode_epoch_metadata(std::string_view text, const std::string& path);

// Stat names in DriverCpuStats order (firmware/transfer_ring.h).
const std::vector<std::string>& driver_stat_names();
// "counted_cycles_<event>": an event's cycles on the rotating counter 2
// (StatsPayload::counted, issue 26; present only when non-zero).
std::string counted_cycles_stat_name(uint32_t event);
// A name of driver_stat_names() or a counted_cycles_stat_name() of a known event.
bool is_driver_stat_name(std::string_view name);

// A file name for (image, event) that is unique per identity and safe:
// "<basename>-<build-id or path hash>.<event>.prof", "unknown.<event>.prof".
std::string profile_file_name(const ImageIdentity& image, const std::string& event_name);

// Name of an event number ("cycles", ..., or "event<N>").
std::string event_name(uint16_t event);

}  // namespace dcpi::profile_format
