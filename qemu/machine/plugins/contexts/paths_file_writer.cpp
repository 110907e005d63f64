#include "qemu/machine/plugins/contexts/paths_file_writer.h"

#include <cstring>

#include "firmware/paths_format.h"
#include "qemu/machine/plugins/contexts/raw_file.h"

namespace dcpi::contexts {
namespace {

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
  append_record(out, header);
  for (const DcpiPathRecord& record : records) append_record(out, record);
  for (const DcpiPathEdge& edge : edges) append_record(out, edge);
  seal_raw_file(out, DCPI_PATHS_TRAILER_MAGIC);
  return out;
}

bool write_paths_file(const std::string& path, uint16_t machine,
                      const std::vector<ThreadEntry>& threads) {
  return write_file_atomically(path, encode_paths(machine, threads));
}

}  // namespace dcpi::contexts
