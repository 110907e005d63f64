#include "qemu/machine/plugins/contexts/contexts_file_writer.h"

#include <cstring>

#include "qemu/machine/plugins/contexts/raw_file.h"

namespace dcpi::contexts {
namespace {

DcpiContextNode record_of(const Node& node, uint32_t base) {
  DcpiContextNode record{};
  record.parent = node.parent == DCPI_CONTEXTS_NO_PARENT ? node.parent : node.parent + base;
  record.kind = node.kind;
  record.image = DCPI_CONTEXTS_NO_IMAGE;
  record.site_image = DCPI_CONTEXTS_NO_IMAGE;
  record.address = node.address;
  record.call_site = node.call_site;
  record.calls = node.calls;
  record.instructions = node.instructions;
  record.cycles = node.cycles;
  record.dcache_misses = node.dcache_misses;
  record.icache_misses = node.icache_misses;
  record.dtb_misses = node.dtb_misses;
  record.mispredicts = node.mispredicts;
  return record;
}

}  // namespace

std::vector<uint8_t> encode_contexts(uint16_t machine, const std::vector<ThreadEntry>& threads) {
  DcpiContextsHeader header{};
  std::memcpy(header.magic, DCPI_CONTEXTS_MAGIC, sizeof header.magic);
  header.version = DCPI_CONTEXTS_VERSION;
  header.header_bytes = sizeof header;
  header.thread_count = static_cast<uint32_t>(threads.size());
  header.machine = machine;
  std::vector<uint8_t> out;
  std::vector<uint32_t> bases;
  uint32_t nodes = 0;
  for (const ThreadEntry& thread : threads) {
    bases.push_back(nodes);
    nodes += static_cast<uint32_t>(thread.tree->nodes().size());
  }
  header.node_count = nodes;
  append_record(out, header);
  for (size_t i = 0; i < threads.size(); ++i)
    append_record(out,
                  DcpiContextThread{threads[i].pid, bases[i], threads[i].cpu, 0, threads[i].pcb});
  for (size_t i = 0; i < threads.size(); ++i)
    for (const Node& node : threads[i].tree->nodes()) append_record(out, record_of(node, bases[i]));
  seal_raw_file(out, DCPI_CONTEXTS_TRAILER_MAGIC);
  return out;
}

bool write_contexts_file(const std::string& path, uint16_t machine,
                         const std::vector<ThreadEntry>& threads) {
  return write_file_atomically(path, encode_contexts(machine, threads));
}

}  // namespace dcpi::contexts
