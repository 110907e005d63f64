#include "profiledb/path_file.h"

#include <cstring>

#include "profiledb/container.h"
#include "profiledb/image_table.h"
#include "profiledb/profile_db.h"

namespace dcpi::profiledb {
namespace {

const ContainerKind kPaths{"paths", DCPI_PATHS_MAGIC, DCPI_PATHS_VERSION, DCPI_PATHS_TRAILER_MAGIC,
                           sizeof(DcpiPathsHeader)};

// No run has 2^26 distinct paths (6.5 GiB of records, beyond kMaxContainerBytes).
constexpr uint64_t kMaxRecords = uint64_t{1} << 26;

// Paths own consecutive, disjoint runs of edges, in record order.
void check_path(const DcpiPathRecord& record, uint32_t index, uint64_t next_edge,
                const PathProfile& profile, size_t offset, const std::string& path) {
  auto fail = [&](const std::string& problem) {
    throw ProfileFormatError(path, offset, "path " + std::to_string(index) + ": " + problem);
  };
  if (record.count == 0) fail("a path that never ran");
  if (record.image != DCPI_PATHS_NO_IMAGE && record.image >= profile.images.size())
    fail("image index out of range");
  if (record.first_edge != next_edge) fail("its edges do not follow the previous path's");
  if (uint64_t{record.first_edge} + record.edge_count > profile.edges.size())
    fail("edges beyond the edge records");
  if (profile.machine == DCPI_CONTEXTS_MACHINE_QEMU &&
      (record.dcache_misses | record.icache_misses | record.dtb_misses | record.mispredicts))
    fail("model events on the qemu machine, which has none");
}

void check_edges(const PathProfile& profile, size_t edges_at, const std::string& path) {
  for (size_t i = 0; i < profile.edges.size(); ++i)
    if (profile.edges[i].to == profile.edges[i].from + 4)
      throw ProfileFormatError(path, edges_at + i * sizeof(DcpiPathEdge),
                               "edge " + std::to_string(i) + " is a fall-through");
}

}  // namespace

PathProfile decode_paths(std::span<const uint8_t> bytes, const std::string& path) {
  const ContainerPrefix prefix = check_prefix(bytes, path, kPaths);
  const auto header = load_record<DcpiPathsHeader>(bytes, 0);
  for (uint32_t word : header.reserved)
    if (word != 0) throw ProfileFormatError(path, 36, "reserved header field not 0");
  if (header.flags & ~DCPI_PATHS_FLAG_ATTRIBUTED)
    throw ProfileFormatError(path, 28, "unknown flags");
  if (header.machine > DCPI_CONTEXTS_MACHINE_EV5)
    throw ProfileFormatError(path, 30, "unknown machine " + std::to_string(header.machine));
  check_header_bytes(prefix, kPaths, header.string_bytes, bytes, path);
  const size_t end = check_trailer(bytes, prefix.header_bytes, path, kPaths);
  if (header.path_count > kMaxRecords || header.edge_count > kMaxRecords)
    throw ProfileFormatError(path, 20, "implausible record counts");
  const uint64_t body = uint64_t{header.path_count} * sizeof(DcpiPathRecord) +
                        uint64_t{header.edge_count} * sizeof(DcpiPathEdge);
  if (body != end - prefix.header_bytes)
    throw ProfileFormatError(path, prefix.header_bytes,
                             "body size does not match the path and edge counts");
  PathProfile profile;
  profile.machine = header.machine;
  profile.attributed = header.flags & DCPI_PATHS_FLAG_ATTRIBUTED;
  if (!profile.attributed && header.image_count != 0)
    throw ProfileFormatError(path, 16, "a raw file with an image table");
  profile.images =
      decode_image_table(bytes, sizeof header, prefix.header_bytes, header.image_count, path);
  const size_t edges_at = prefix.header_bytes + header.path_count * sizeof(DcpiPathRecord);
  for (uint32_t i = 0; i < header.edge_count; ++i)
    profile.edges.push_back(load_record<DcpiPathEdge>(bytes, edges_at + i * sizeof(DcpiPathEdge)));
  check_edges(profile, edges_at, path);
  uint64_t next_edge = 0;
  for (uint32_t i = 0; i < header.path_count; ++i) {
    const size_t offset = prefix.header_bytes + i * sizeof(DcpiPathRecord);
    profile.paths.push_back(load_record<DcpiPathRecord>(bytes, offset));
    check_path(profile.paths.back(), i, next_edge, profile, offset, path);
    next_edge += profile.paths.back().edge_count;
  }
  if (next_edge != profile.edges.size())
    throw ProfileFormatError(path, edges_at, "edge records no path owns");
  return profile;
}

std::vector<uint8_t> encode_paths(const PathProfile& profile) {
  const std::vector<uint8_t> strings = encode_image_table(profile.images);
  DcpiPathsHeader header{};
  const ContainerPrefix prefix = make_prefix(kPaths, strings.size());
  std::memcpy(&header, &prefix, sizeof prefix);
  header.image_count = static_cast<uint32_t>(profile.images.size());
  header.path_count = static_cast<uint32_t>(profile.paths.size());
  header.edge_count = static_cast<uint32_t>(profile.edges.size());
  header.flags = profile.attributed ? DCPI_PATHS_FLAG_ATTRIBUTED : 0;
  header.machine = profile.machine;
  header.string_bytes = static_cast<uint32_t>(strings.size());
  std::vector<uint8_t> out;
  append_bytes(out, &header, sizeof header);
  out.insert(out.end(), strings.begin(), strings.end());
  append_bytes(out, profile.paths.data(), profile.paths.size() * sizeof(DcpiPathRecord));
  append_bytes(out, profile.edges.data(), profile.edges.size() * sizeof(DcpiPathEdge));
  seal(out, kPaths);
  return out;
}

PathProfile read_paths_file(const std::filesystem::path& file) {
  return decode_paths(read_file_bytes(file), file.string());
}

}  // namespace dcpi::profiledb
