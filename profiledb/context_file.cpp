#include "profiledb/context_file.h"

#include <cstddef>
#include <cstring>

#include "profiledb/container.h"
#include "profiledb/image_table.h"
#include "profiledb/profile_db.h"

namespace dcpi::profiledb {
namespace {

const ContainerKind kContexts{"contexts", DCPI_CONTEXTS_MAGIC, DCPI_CONTEXTS_VERSION,
                              DCPI_CONTEXTS_TRAILER_MAGIC, sizeof(DcpiContextsHeader)};
// Version 1 (before the ev5 events): the same but for shorter nodes.
const ContainerKind kContextsFirst{"contexts", DCPI_CONTEXTS_MAGIC, DCPI_CONTEXTS_VERSION_FIRST,
                                   DCPI_CONTEXTS_TRAILER_MAGIC, sizeof(DcpiContextsHeader)};

// The kind the file says it is: its version, when this reader knows it.
const ContainerKind& kind_of(std::span<const uint8_t> bytes) {
  uint32_t version = 0;
  if (bytes.size() >= offsetof(ContainerPrefix, header_bytes))
    std::memcpy(&version, bytes.data() + offsetof(ContainerPrefix, version), sizeof version);
  return version == DCPI_CONTEXTS_VERSION_FIRST ? kContextsFirst : kContexts;
}

size_t node_bytes(const ContainerKind& kind) {
  return kind.version == DCPI_CONTEXTS_VERSION_FIRST ? DCPI_CONTEXT_NODE_V1_BYTES
                                                     : sizeof(DcpiContextNode);
}

// At most this many records of either kind: no guest runs 2^24 threads, and
// a tree of 64 M contexts (3.5 GiB) is beyond kMaxContainerBytes anyway.
constexpr uint64_t kMaxRecords = uint64_t{1} << 26;

void check_thread(const DcpiContextThread& thread, const ContextProfile& profile,
                  std::vector<bool>& owned, size_t offset, const std::string& path) {
  if (thread.reserved != 0) throw ProfileFormatError(path, offset, "thread reserved field not 0");
  if (thread.root >= profile.nodes.size() || profile.nodes[thread.root].kind != DCPI_CONTEXT_ROOT)
    throw ProfileFormatError(path, offset, "thread root is not a root node");
  if (owned[thread.root]) throw ProfileFormatError(path, offset, "two threads share a root");
  owned[thread.root] = true;
}

void check_node(const DcpiContextNode& node, uint32_t index, const ContextProfile& profile,
                size_t offset, const std::string& path) {
  auto fail = [&](const std::string& problem) {
    throw ProfileFormatError(path, offset, "node " + std::to_string(index) + ": " + problem);
  };
  if (node.kind >= DCPI_CONTEXT_KIND_COUNT) fail("unknown kind " + std::to_string(node.kind));
  if (node.reserved != 0) fail("reserved field not 0");
  const bool root = node.kind == DCPI_CONTEXT_ROOT;
  if (root != (node.parent == DCPI_CONTEXTS_NO_PARENT)) fail("only roots have no parent");
  if (!root && node.parent >= index) fail("parent does not come before it");
  if (node.kind != DCPI_CONTEXT_CALL && (node.address || node.call_site || node.calls))
    fail("a root or kernel node with an address or calls");
  if (node.kind == DCPI_CONTEXT_CALL && node.calls == 0) fail("a call context never called");
  if (profile.machine == DCPI_CONTEXTS_MACHINE_QEMU &&
      (node.dcache_misses | node.icache_misses | node.dtb_misses | node.mispredicts) != 0)
    fail("model events on the qemu machine, which has none");
  for (uint32_t image : {node.image, node.site_image})
    if (image != DCPI_CONTEXTS_NO_IMAGE && image >= profile.images.size())
      fail("image index out of range");
}

}  // namespace

ContextProfile decode_contexts(std::span<const uint8_t> bytes, const std::string& path) {
  const ContainerKind& kind = kind_of(bytes);
  const size_t node_size = node_bytes(kind);
  const ContainerPrefix prefix = check_prefix(bytes, path, kind);
  const auto header = load_record<DcpiContextsHeader>(bytes, 0);
  for (uint32_t word : header.reserved)
    if (word != 0) throw ProfileFormatError(path, 36, "reserved header field not 0");
  if (header.flags & ~DCPI_CONTEXTS_FLAG_ATTRIBUTED)
    throw ProfileFormatError(path, 32, "unknown flags");
  if (header.machine > DCPI_CONTEXTS_MACHINE_EV5)
    throw ProfileFormatError(path, 34, "unknown machine " + std::to_string(header.machine));
  check_header_bytes(prefix, kind, header.string_bytes, bytes, path);
  const size_t end = check_trailer(bytes, prefix.header_bytes, path, kind);
  if (header.thread_count > kMaxRecords || header.node_count > kMaxRecords)
    throw ProfileFormatError(path, 20, "implausible record counts");
  const uint64_t body = uint64_t{header.thread_count} * sizeof(DcpiContextThread) +
                        uint64_t{header.node_count} * node_size;
  if (body != end - prefix.header_bytes)
    throw ProfileFormatError(path, prefix.header_bytes,
                             "body size does not match the thread and node counts");
  ContextProfile profile;
  profile.machine = header.machine;
  profile.attributed = header.flags & DCPI_CONTEXTS_FLAG_ATTRIBUTED;
  if (!profile.attributed && header.image_count != 0)
    throw ProfileFormatError(path, 16, "a raw file with an image table");
  profile.images =
      decode_image_table(bytes, sizeof header, prefix.header_bytes, header.image_count, path);
  const size_t nodes_at = prefix.header_bytes + header.thread_count * sizeof(DcpiContextThread);
  for (uint32_t i = 0; i < header.node_count; ++i) {
    const size_t offset = nodes_at + i * node_size;
    profile.nodes.push_back(load_record<DcpiContextNode>(bytes, offset, node_size));
    check_node(profile.nodes.back(), i, profile, offset, path);
  }
  std::vector<bool> owned(profile.nodes.size());
  for (uint32_t i = 0; i < header.thread_count; ++i) {
    const size_t offset = prefix.header_bytes + i * sizeof(DcpiContextThread);
    profile.threads.push_back(load_record<DcpiContextThread>(bytes, offset));
    check_thread(profile.threads.back(), profile, owned, offset, path);
  }
  for (uint32_t i = 0; i < profile.nodes.size(); ++i)
    if (profile.nodes[i].kind == DCPI_CONTEXT_ROOT && !owned[i])
      throw ProfileFormatError(path, nodes_at + i * node_size,
                               "root node " + std::to_string(i) + " belongs to no thread");
  return profile;
}

std::vector<uint8_t> encode_contexts(const ContextProfile& profile) {
  const std::vector<uint8_t> strings = encode_image_table(profile.images);
  DcpiContextsHeader header{};
  const ContainerPrefix prefix = make_prefix(kContexts, strings.size());
  std::memcpy(&header, &prefix, sizeof prefix);
  header.image_count = static_cast<uint32_t>(profile.images.size());
  header.thread_count = static_cast<uint32_t>(profile.threads.size());
  header.node_count = static_cast<uint32_t>(profile.nodes.size());
  header.flags = profile.attributed ? DCPI_CONTEXTS_FLAG_ATTRIBUTED : 0;
  header.machine = profile.machine;
  header.string_bytes = static_cast<uint32_t>(strings.size());
  std::vector<uint8_t> out;
  append_bytes(out, &header, sizeof header);
  out.insert(out.end(), strings.begin(), strings.end());
  append_bytes(out, profile.threads.data(), profile.threads.size() * sizeof(DcpiContextThread));
  append_bytes(out, profile.nodes.data(), profile.nodes.size() * sizeof(DcpiContextNode));
  seal(out, kContexts);
  return out;
}

ContextProfile read_contexts_file(const std::filesystem::path& file) {
  return decode_contexts(read_file_bytes(file), file.string());
}

}  // namespace dcpi::profiledb
