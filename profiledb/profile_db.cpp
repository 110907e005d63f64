#include "profiledb/profile_db.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "profiledb/container.h"
#include "profiledb/event_modes.h"
#include "profiledb/profile_format.h"

namespace dcpi {
namespace {

namespace fs = std::filesystem;
using namespace profile_format;

constexpr std::string_view kEpochPrefix = "epoch-";

bool parse_epoch_directory(const std::string& name, uint64_t& epoch) {
  if (!name.starts_with(kEpochPrefix) || name.size() == kEpochPrefix.size()) return false;
  epoch = 0;
  for (char c : name.substr(kEpochPrefix.size())) {
    if (c < '0' || c > '9' || epoch > (UINT64_MAX - 9) / 10) return false;
    epoch = epoch * 10 + static_cast<uint64_t>(c - '0');
  }
  return epoch <= kMaxEpoch && epoch_directory_name(epoch) == name;
}

}  // namespace

bool format_file_matches(const fs::path& file) {
  std::vector<uint8_t> bytes;
  try {
    bytes = profiledb::read_file_bytes(file, 64);  // never blocks: FIFOs are refused
  } catch (const ProfileDatabaseError&) {
    return false;
  }
  return std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()) == kFormatText;
}

bool is_machine_name(std::string_view name) { return name == kMachineQemu || name == kMachineEv5; }

double mean_period(uint64_t base, uint64_t range) {
  return range <= 1 ? static_cast<double>(base)
                    : static_cast<double>(base) + static_cast<double>(range - 1) / 2.0;
}

std::string period_interval_text(const SamplingPeriod& period) {
  if (period.range <= 1) return std::to_string(period.base);
  return "[" + std::to_string(period.base) + ", " + std::to_string(period.base + period.range) +
         ")";
}

std::string to_string(const SamplingPeriod& period) {
  if (!period.known()) return "unknown";
  return (period.changed ? "changed, within " : "") + period_interval_text(period);
}

double SamplingPeriod::mean() const { return known() ? mean_period(base, range) : 0.0; }

void SamplingPeriod::merge(const SamplingPeriod& other) {
  if (!other.known()) return;
  if (!known()) {
    *this = other;
    return;
  }
  if (base == other.base && range == other.range) {
    changed = changed || other.changed;
    return;
  }
  // A range of 0 draws `base` only: the interval [base, base + 1).
  const uint64_t end = std::max(base + std::max<uint64_t>(range, 1),
                                other.base + std::max<uint64_t>(other.range, 1));
  base = std::min(base, other.base);
  range = end - base;
  changed = true;
}

std::string epoch_directory_name(uint64_t epoch) {
  std::string digits = std::to_string(epoch);
  if (digits.size() < 8) digits.insert(0, 8 - digits.size(), '0');
  return std::string(kEpochPrefix) + digits;
}

ProfileInfo read_profile_info(const fs::path& file) {
  const std::vector<uint8_t> bytes =
      profiledb::read_file_bytes(file, kFixedHeaderBytes + 3 * size_t{UINT16_MAX});
  return decode_profile_info(bytes, file.string());
}

Profile read_profile_file(const fs::path& file) {
  return decode_profile(profiledb::read_file_bytes(file), file.string());
}

EpochMetadata read_epoch_metadata(const fs::path& file) {
  const std::vector<uint8_t> bytes =
      profiledb::read_file_bytes(file, SIZE_MAX, profiledb::kMaxTextFileBytes);
  return decode_epoch_metadata(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), file.string());
}

ProfileDatabase ProfileDatabase::open(const fs::path& directory) {
  std::error_code error;
  if (!fs::is_directory(directory, error))
    throw ProfileDatabaseError("profile database " + directory.string() +
                               " does not exist or is not a directory");
  if (!format_file_matches(directory / kFormatName))
    throw ProfileDatabaseError(directory.string() +
                               " is not a dcpi profile database (missing or unsupported " +
                               kFormatName + " file)");
  return ProfileDatabase(directory);
}

namespace {

// Every epoch-N directory, and whether it has its metadata (lstat: a FIFO or
// a dangling link named epoch.meta counts as present, and fails when read).
std::vector<std::pair<uint64_t, bool>> list_epochs(const fs::path& directory) {
  std::vector<std::pair<uint64_t, bool>> epochs;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
    uint64_t epoch = 0;
    if (!entry.is_directory() || !parse_epoch_directory(entry.path().filename().string(), epoch))
      continue;
    std::error_code missing;
    const bool meta = fs::exists(fs::symlink_status(entry.path() / kEpochMetaName, missing));
    epochs.emplace_back(epoch, meta);
  }
  if (error)
    throw ProfileDatabaseError("cannot list " + directory.string() + ": " + error.message());
  std::sort(epochs.begin(), epochs.end());
  return epochs;
}

}  // namespace

std::vector<uint64_t> ProfileDatabase::epochs() const {
  std::vector<uint64_t> epochs;
  for (const auto& [epoch, meta] : list_epochs(directory_))
    if (meta) epochs.push_back(epoch);
  return epochs;
}

std::vector<fs::path> ProfileDatabase::incomplete_epochs() const {
  std::vector<fs::path> debris;
  for (const auto& [epoch, meta] : list_epochs(directory_))
    if (!meta) debris.push_back(epoch_directory(epoch));
  return debris;
}

std::vector<uint64_t> ProfileDatabase::select_epochs(
    const std::optional<std::vector<uint64_t>>& chosen) const {
  const std::vector<uint64_t> present = epochs();
  if (!chosen) return present;
  for (uint64_t epoch : *chosen)
    if (!std::binary_search(present.begin(), present.end(), epoch))
      throw ProfileDatabaseError(directory_.string() + " has no epoch " + std::to_string(epoch));
  return *chosen;
}

fs::path ProfileDatabase::epoch_directory(uint64_t epoch) const {
  return directory_ / epoch_directory_name(epoch);
}

std::optional<ProcessTable> ProfileDatabase::process_table(uint64_t epoch) const {
  return read_process_table(epoch_directory(epoch));
}

EpochMetadata ProfileDatabase::epoch_metadata(uint64_t epoch) const {
  const fs::path file = epoch_directory(epoch) / kEpochMetaName;
  if (!fs::exists(file))
    throw ProfileDatabaseError("epoch " + std::to_string(epoch) + " has no metadata file " +
                               file.string());
  EpochMetadata metadata = read_epoch_metadata(file);
  if (metadata.epoch != epoch)
    throw ProfileFormatError(file.string(), 0,
                             "metadata names epoch " + std::to_string(metadata.epoch) +
                                 " but lives in " + epoch_directory_name(epoch));
  return metadata;
}

std::vector<ProfileInfo> ProfileDatabase::profiles(uint64_t epoch) const {
  std::vector<ProfileInfo> profiles;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(epoch_directory(epoch), error)) {
    const std::string name = entry.path().filename().string();
    // Not is_regular_file(): a FIFO, directory or dangling link named *.prof
    // must not be skipped silently (issue 18); reading it fails, naming it.
    if (name.starts_with(".") || !name.ends_with(kProfileSuffix)) continue;
    ProfileInfo info = read_profile_info(entry.path());
    info.epoch = epoch;
    profiles.push_back(std::move(info));
  }
  if (error)
    throw ProfileDatabaseError("cannot list epoch " + std::to_string(epoch) + " in " +
                               directory_.string() + ": " + error.message());
  // Issue 26: counters 1 and 2's events say the modes they were counted in
  // ("imiss:u"), from the kill bits the driver recorded for the epoch; the
  // stored name stays the plain one (older databases read as before).
  if (!profiles.empty() && fs::exists(epoch_directory(epoch) / kEpochMetaName)) {
    const std::string suffix = mode_suffix(epoch_kill_bits(epoch_metadata(epoch)));
    if (!suffix.empty())
      for (ProfileInfo& info : profiles)
        if (event_has_modes(info.event)) info.event_name += suffix;
  }
  std::sort(profiles.begin(), profiles.end(), [](const ProfileInfo& a, const ProfileInfo& b) {
    return std::tie(a.image.path, a.image.build_id, a.event) <
           std::tie(b.image.path, b.image.build_id, b.event);
  });
  return profiles;
}

Profile ProfileDatabase::read_profile(const ProfileInfo& info) const {
  Profile profile = read_profile_file(info.file);
  profile.info.epoch = info.epoch;
  profile.info.event_name = info.event_name;  // with the epoch's modes (profiles())
  return profile;
}

}  // namespace dcpi
