// Value files of the profile database (seed 001 §2.2, §2.4; format in
// docs/profile-db.md, "Value files"): per (epoch, image, value kind) one file
//   epoch-NNNNNNNN/<basename>-<id>.<kind>.vals
// holding each PC's hotlist: the values with their retained counts C[v], the
// probability p, and the number of values seen. Versioned and checksummed
// like the .prof files; merged on update with ConciseSample::merge.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "profiledb/concise_sample.h"
#include "profiledb/profile_db.h"
#include "profiledb/value_format.h"

namespace dcpi::values {

inline constexpr char kValueMagic[8] = {'D', 'C', 'P', 'I', 'V', 'A', 'L', 'S'};
inline constexpr uint32_t kValueVersion = 1;
inline constexpr uint32_t kValueTrailerMagic = 0x56504344u;  // "DCPV"
inline constexpr uint32_t kValueFixedHeaderBytes = 72;
inline constexpr const char* kValueSuffix = ".vals";

struct PcHotlist {
  uint64_t address = 0;          // ELF virtual address in the image (raw PC if unknown)
  uint64_t seen = 0;             // values offered to this hotlist (>= 1)
  double probability = 1.0;      // p, in (0, 1]
  std::vector<HotValue> values;  // sorted by value; count >= 1; estimate = count / p
};

struct ValueFileInfo {
  std::filesystem::path file;
  uint64_t epoch = 0;
  ImageIdentity image;
  std::string kind;    // "result", "fp_a", "address", ...
  std::string module;  // the customization module that defined the kind
  ValueFormat format = ValueFormat::kHex;
  uint32_t capacity = kHotlistCapacity;         // N
  double shrink_factor = kHotlistShrinkFactor;  // f
  uint64_t pc_count = 0;
  uint64_t seen_total = 0;   // sum of the hotlists' seen
  uint64_t value_total = 0;  // sum of the hotlists' value counts (entries)
};

struct ValueFile {
  ValueFileInfo info;
  std::vector<PcHotlist> hotlists;  // sorted by address, unique
};

std::vector<uint8_t> encode_value_file(const ValueFileInfo& info,
                                       std::span<const PcHotlist> hotlists);
// Validates everything (magic, version, header, varints, order, p in (0,1],
// counts <= seen, exact counts when p = 1, totals, CRC-32C); throws
// ProfileFormatError naming `path` and the offset.
ValueFile decode_value_file(std::span<const uint8_t> bytes, const std::string& path);
ValueFileInfo decode_value_file_info(std::span<const uint8_t> bytes, const std::string& path);

ValueFile read_value_file(const std::filesystem::path& file);
ValueFileInfo read_value_file_info(const std::filesystem::path& file);
// The value files of an epoch, sorted by (image path, build-id, kind).
std::vector<ValueFileInfo> list_value_files(const ProfileDatabase& db, uint64_t epoch);

// "<basename>-<id>.<kind>.vals" (the .prof naming with another suffix).
std::string value_file_name(const ImageIdentity& image, const std::string& kind);

PcHotlist hotlist_of(uint64_t address, const ConciseSample& sample);
ConciseSample sample_of(const PcHotlist& hotlist, uint64_t seed, const ValueFileInfo& info);

// Merges two files' hotlists of the same (image, kind): PCs in one only are
// copied; PCs in both merge with ConciseSample::merge seeded by hotlist_seed.
std::vector<PcHotlist> merge_hotlists(const ValueFileInfo& info, std::span<const PcHotlist> a,
                                      std::span<const PcHotlist> b);

}  // namespace dcpi::values
