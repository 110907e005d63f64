#include "profiledb/value_file.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "firmware/crc32c.h"
#include "profiledb/container.h"
#include "profiledb/profile_format.h"

namespace dcpi::values {
namespace {

namespace fs = std::filesystem;
using namespace profiledb;

constexpr uint8_t kFlagUnknownImage = 1;
constexpr uint32_t kMaxCapacity = 1024;
constexpr ContainerKind kValueKind{"value",
                                   {kValueMagic, sizeof kValueMagic},
                                   kValueVersion,
                                   kValueTrailerMagic,
                                   kValueFixedHeaderBytes};

// Fixed part of the header, after the container prefix (container.h).
// Strings follow it: build-id hex, path, kind, module.
struct FixedHeader {
  ContainerPrefix prefix;  // "DCPIVALS", kValueVersion, header_bytes
  uint8_t format;
  uint8_t flags;
  uint16_t capacity;
  uint32_t reserved;
  double shrink_factor;
  uint64_t image_size;
  uint64_t pc_count;
  uint64_t seen_total;
  uint64_t value_total;
  uint16_t build_id_chars;
  uint16_t path_bytes;
  uint16_t kind_bytes;
  uint16_t module_bytes;
};
static_assert(sizeof(FixedHeader) == kValueFixedHeaderBytes);

FixedHeader decode_header(std::span<const uint8_t> bytes, const std::string& path) {
  (void)check_prefix(bytes, path, kValueKind);
  FixedHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  check_header_bytes(h.prefix, kValueKind,
                     uint64_t{h.build_id_chars} + h.path_bytes + h.kind_bytes + h.module_bytes,
                     bytes, path);
  if (h.format >= kValueFormatCount)
    throw ProfileFormatError(path, 16, "unknown value format " + std::to_string(h.format));
  if (h.flags & ~kFlagUnknownImage)
    throw ProfileFormatError(path, 17, "unknown flags " + std::to_string(h.flags));
  if (h.capacity == 0 || h.capacity > kMaxCapacity)
    throw ProfileFormatError(path, 18, "hotlist capacity " + std::to_string(h.capacity));
  if (!(h.shrink_factor > 1.0 && h.shrink_factor < 16.0))
    throw ProfileFormatError(path, 24, "shrink factor out of range");
  return h;
}

ValueFileInfo info_of(const FixedHeader& h, std::span<const uint8_t> bytes,
                      const std::string& path) {
  ValueFileInfo info;
  info.file = path;
  Cursor cursor(bytes, kValueFixedHeaderBytes, h.prefix.header_bytes, path);
  info.image.build_id = cursor.text(h.build_id_chars, "build-id");
  if (!is_lower_hex(info.image.build_id))
    throw ProfileFormatError(path, kValueFixedHeaderBytes, "build-id is not lower-case hex");
  info.image.path = cursor.text(h.path_bytes, "path");
  const size_t kind_at = cursor.position();
  info.kind = cursor.text(h.kind_bytes, "kind");
  if (!valid_kind_name(info.kind))
    throw ProfileFormatError(path, kind_at, "bad value kind name '" + info.kind + "'");
  info.module = cursor.text(h.module_bytes, "module");
  info.image.image_size = h.image_size;
  info.image.unknown = h.flags & kFlagUnknownImage;
  info.format = static_cast<ValueFormat>(h.format);
  info.capacity = h.capacity;
  info.shrink_factor = h.shrink_factor;
  info.pc_count = h.pc_count;
  info.seen_total = h.seen_total;
  info.value_total = h.value_total;
  return info;
}

}  // namespace

std::vector<uint8_t> encode_value_file(const ValueFileInfo& info,
                                       std::span<const PcHotlist> hotlists) {
  const ImageIdentity& image = info.image;
  if (image.build_id.size() > kMaxStringBytes || image.path.size() > kMaxStringBytes ||
      info.module.size() > kMaxStringBytes || !valid_kind_name(info.kind))
    throw std::length_error("value file header string too long or bad kind name");
  FixedHeader h{};
  h.prefix = make_prefix(kValueKind, image.build_id.size() + image.path.size() + info.kind.size() +
                                         info.module.size());
  h.format = static_cast<uint8_t>(info.format);
  h.flags = image.unknown ? kFlagUnknownImage : 0;
  h.capacity = static_cast<uint16_t>(info.capacity);
  h.shrink_factor = info.shrink_factor;
  h.image_size = image.image_size;
  h.pc_count = hotlists.size();
  h.build_id_chars = static_cast<uint16_t>(image.build_id.size());
  h.path_bytes = static_cast<uint16_t>(image.path.size());
  h.kind_bytes = static_cast<uint16_t>(info.kind.size());
  h.module_bytes = static_cast<uint16_t>(info.module.size());
  std::vector<uint8_t> body;
  uint64_t previous = 0;
  for (size_t i = 0; i < hotlists.size(); ++i) {
    const PcHotlist& list = hotlists[i];
    if ((i > 0 && list.address <= previous) || list.seen == 0 || list.values.size() > info.capacity)
      throw std::logic_error("encode_value_file: hotlists not sorted, unique and non-empty");
    put_varint(body, list.address - previous);
    previous = list.address;
    put_varint(body, list.seen);
    append_bytes(body, &list.probability, sizeof list.probability);
    put_varint(body, list.values.size());
    uint64_t previous_value = 0;
    for (size_t v = 0; v < list.values.size(); ++v) {
      if (list.values[v].count == 0 || (v > 0 && list.values[v].value <= previous_value))
        throw std::logic_error("encode_value_file: values not sorted, unique and non-zero");
      put_varint(body, list.values[v].value - previous_value);
      put_varint(body, list.values[v].count);
      previous_value = list.values[v].value;
    }
    h.seen_total += list.seen;
    h.value_total += list.values.size();
  }
  std::vector<uint8_t> out;
  append_bytes(out, &h, sizeof h);
  append_bytes(out, image.build_id.data(), image.build_id.size());
  append_bytes(out, image.path.data(), image.path.size());
  append_bytes(out, info.kind.data(), info.kind.size());
  append_bytes(out, info.module.data(), info.module.size());
  out.insert(out.end(), body.begin(), body.end());
  seal(out, kValueKind);
  return out;
}

ValueFileInfo decode_value_file_info(std::span<const uint8_t> bytes, const std::string& path) {
  return info_of(decode_header(bytes, path), bytes, path);
}

ValueFile decode_value_file(std::span<const uint8_t> bytes, const std::string& path) {
  const FixedHeader h = decode_header(bytes, path);
  ValueFile file;
  file.info = info_of(h, bytes, path);
  const size_t end = check_trailer(bytes, h.prefix.header_bytes, path, kValueKind);
  Cursor in(bytes, h.prefix.header_bytes, end, path);
  if (h.pc_count > (end - h.prefix.header_bytes) / 12)
    in.fail(56, "PC count larger than the body could hold");
  file.hotlists.reserve(h.pc_count);
  uint64_t address = 0, seen_total = 0, value_total = 0;
  for (uint64_t i = 0; i < h.pc_count; ++i) {
    const size_t start = in.position();
    const uint64_t delta = in.varint("address");
    if (i > 0 && delta == 0) in.fail(start, "addresses not strictly increasing");
    if (address + delta < address) in.fail(start, "address overflows 64 bits");
    address += delta;
    PcHotlist list;
    list.address = address;
    list.seen = in.varint("seen");
    if (list.seen == 0) in.fail(start, "hotlist with nothing seen");
    const size_t p_at = in.position();
    list.probability = in.f64("probability");
    if (!(list.probability > 0.0 && list.probability <= 1.0))
      in.fail(p_at, "probability outside (0, 1]");
    const uint64_t n = in.varint("value count");
    if (n > h.capacity) in.fail(start, "more values than the hotlist capacity");
    uint64_t value = 0, counts = 0;
    for (uint64_t v = 0; v < n; ++v) {
      const size_t value_at = in.position();
      const uint64_t step = in.varint("value");
      if (v > 0 && step == 0) in.fail(value_at, "values not strictly increasing");
      if (value + step < value) in.fail(value_at, "value overflows 64 bits");
      value += step;
      const uint64_t count = in.varint("count");
      if (count == 0 || count > list.seen - counts)
        in.fail(value_at, "count zero or above the values seen");
      counts += count;
      list.values.push_back(HotValue{value, count, double(count) / list.probability});
    }
    // While p = 1 nothing was thinned: the counts are exact.
    if (list.probability == 1.0 && counts != list.seen)
      in.fail(start, "p = 1 but the counts do not add up to the values seen");
    seen_total += list.seen;
    value_total += n;
    file.hotlists.push_back(std::move(list));
  }
  if (!in.done()) in.fail(in.position(), "bytes after the last hotlist");
  if (seen_total != h.seen_total) in.fail(48, "seen total does not match the hotlists");
  if (value_total != h.value_total) in.fail(56, "value total does not match the hotlists");
  return file;
}

ValueFile read_value_file(const fs::path& file) {
  return decode_value_file(read_file_bytes(file), file.string());
}

ValueFileInfo read_value_file_info(const fs::path& file) {
  return decode_value_file_info(
      read_file_bytes(file, kValueFixedHeaderBytes + 4 * size_t{UINT16_MAX}), file.string());
}

std::vector<ValueFileInfo> list_value_files(const ProfileDatabase& db, uint64_t epoch) {
  std::vector<ValueFileInfo> files;
  std::error_code error;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(db.epoch_directory(epoch), error)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.starts_with(".") || !name.ends_with(kValueSuffix))
      continue;
    ValueFileInfo info = read_value_file_info(entry.path());
    info.epoch = epoch;
    files.push_back(std::move(info));
  }
  if (error) throw ProfileDatabaseError("cannot list epoch " + std::to_string(epoch));
  std::sort(files.begin(), files.end(), [](const ValueFileInfo& a, const ValueFileInfo& b) {
    return std::tie(a.image.path, a.image.build_id, a.kind) <
           std::tie(b.image.path, b.image.build_id, b.kind);
  });
  return files;
}

std::string value_file_name(const ImageIdentity& image, const std::string& kind) {
  std::string name = profile_format::profile_file_name(image, kind);
  name.resize(name.size() - std::strlen(profile_format::kProfileSuffix));
  return name + kValueSuffix;
}

PcHotlist hotlist_of(uint64_t address, const ConciseSample& sample) {
  PcHotlist list{address, sample.seen(), sample.probability(), sample.hotlist()};
  std::sort(list.values.begin(), list.values.end(),
            [](const HotValue& a, const HotValue& b) { return a.value < b.value; });
  return list;
}

ConciseSample sample_of(const PcHotlist& hotlist, uint64_t seed, const ValueFileInfo& info) {
  return ConciseSample::restore(seed, hotlist.probability, hotlist.seen, hotlist.values,
                                info.capacity, info.shrink_factor);
}

std::vector<PcHotlist> merge_hotlists(const ValueFileInfo& info, std::span<const PcHotlist> a,
                                      std::span<const PcHotlist> b) {
  std::vector<PcHotlist> out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].address < b[j].address)) {
      out.push_back(a[i++]);
    } else if (i == a.size() || b[j].address < a[i].address) {
      out.push_back(b[j++]);
    } else {
      const uint64_t seed = hotlist_seed(a[i].address, info.kind, info.epoch) ^ a[i].seen;
      ConciseSample merged = sample_of(a[i], seed, info);
      merged.merge(sample_of(b[j], seed + 1, info));
      out.push_back(hotlist_of(a[i].address, merged));
      ++i;
      ++j;
    }
  }
  return out;
}

}  // namespace dcpi::values
