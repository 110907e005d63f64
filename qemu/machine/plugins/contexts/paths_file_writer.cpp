#include "qemu/machine/plugins/contexts/paths_file_writer.h"

#include <cstdio>
#include <cstring>

#include "firmware/crc32c.h"
#include "firmware/paths_format.h"

namespace dcpi::contexts {
namespace {

template <typename T>
void append(std::vector<uint8_t>& out, const T& value) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof value);
}

DcpiPathRecord record_of(uint32_t pid, const PathKey& key, const PathCosts& costs,
                         uint32_t first_edge) {
  DcpiPathRecord record{};
  record.pid = pid;
  record.image = DCPI_PATHS_NO_IMAGE;
  record.procedure = key.procedure;
  record.start = key.start;
  record.end = key.end;
  record.first_edge = first_edge;
  record.edge_count = static_cast<uint32_t>(key.edges.size());
  record.count = costs.count;
  record.instructions = costs.instructions;
  record.cycles = costs.cycles;
  record.dcache_misses = costs.dcache_misses;
  record.icache_misses = costs.icache_misses;
  record.dtb_misses = costs.dtb_misses;
  record.mispredicts = costs.mispredicts;
  return record;
}

}  // namespace

std::vector<uint8_t> encode_paths(uint16_t machine, const std::vector<ThreadEntry>& threads) {
  std::vector<DcpiPathRecord> records;
  std::vector<DcpiPathEdge> edges;
  for (const ThreadEntry& thread : threads) {
    if (!thread.paths) continue;
    for (const auto& [key, costs] : thread.paths->paths()) {
      records.push_back(record_of(thread.pid, key, costs, static_cast<uint32_t>(edges.size())));
      for (const auto& [from, to] : key.edges) edges.push_back(DcpiPathEdge{from, to});
    }
  }
  DcpiPathsHeader header{};
  std::memcpy(header.magic, DCPI_PATHS_MAGIC, sizeof header.magic);
  header.version = DCPI_PATHS_VERSION;
  header.header_bytes = sizeof header;
  header.path_count = static_cast<uint32_t>(records.size());
  header.edge_count = static_cast<uint32_t>(edges.size());
  header.machine = machine;
  std::vector<uint8_t> out;
  append(out, header);
  for (const DcpiPathRecord& record : records) append(out, record);
  for (const DcpiPathEdge& edge : edges) append(out, edge);
  append(out, crc32c(out.data(), out.size()));
  append(out, uint32_t{DCPI_PATHS_TRAILER_MAGIC});
  return out;
}

bool write_paths_file(const std::string& path, uint16_t machine,
                      const std::vector<ThreadEntry>& threads) {
  const std::vector<uint8_t> bytes = encode_paths(machine, threads);
  const std::string temporary = path + ".tmp";
  FILE* file = std::fopen(temporary.c_str(), "wb");
  if (!file) return false;
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  if (std::fclose(file) != 0 || !written) return false;
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

}  // namespace dcpi::contexts
