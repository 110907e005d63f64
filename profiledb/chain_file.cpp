#include "profiledb/chain_file.h"

#include <cstring>

#include "profiledb/container.h"
#include "profiledb/image_table.h"
#include "profiledb/profile_db.h"

namespace dcpi::profiledb {
namespace {

const ContainerKind kChains{"chains",
                            std::string_view(kChainsMagic, 8),
                            kChainsVersion,
                            kChainsTrailerMagic,
                            sizeof(ChainsHeader),
                            kChainsOldestVersion};

// Version 2's addresses: the difference from the previous frame node's,
// zigzag-coded. Frames of one chain and of its neighbours in the file lie
// in the same few procedures, so most deltas take 1-3 bytes where a kernel
// address takes 10 (the database's -g growth, issue 28: <= 2x).
struct AddressCoder {
  uint32_t version = kChainsVersion;
  uint64_t previous = 0;
  uint64_t encode(uint64_t address) {
    if (version < 2) return address;
    const uint64_t delta = address - previous;
    previous = address;
    return (delta << 1) ^ (0 - (delta >> 63));  // zigzag: small either way
  }
  uint64_t decode(uint64_t coded) {
    if (version < 2) return coded;
    const uint64_t delta = (coded >> 1) ^ (0 - (coded & 1));
    previous += delta;
    return previous;
  }
};
constexpr uint64_t kMaxNodes = uint64_t{1} << 26;

void check_node(const ChainNode& node, uint32_t index, const ChainProfile& profile, size_t offset,
                const std::string& path) {
  auto fail = [&](const std::string& problem) {
    throw ProfileFormatError(path, offset, "node " + std::to_string(index) + ": " + problem);
  };
  if (node.reserved != 0) fail("reserved field not 0");
  if (node.kind == kChainRoot) {
    if (node.parent != kChainNoParent) fail("a root with a parent");
    if (node.stop >= static_cast<uint16_t>(ChainStop::kCount))
      fail("unknown stop " + std::to_string(node.stop));
    if (node.image != kChainNoImage || node.address != 0 || node.samples != 0)
      fail("a root with an image, address or samples");
    return;
  }
  if (node.kind != kChainFrame) fail("unknown kind " + std::to_string(node.kind));
  if (node.parent == kChainNoParent) fail("a frame without a parent");
  if (node.parent >= index) fail("parent does not come before it");
  if (node.stop != 0) fail("a frame with a stop");
  if (node.image != kChainNoImage && node.image >= profile.images.size())
    fail("image index out of range");
}

// A node as varints (docs/profile-db.md): a root is 0 and its stop; a frame
// is the distance back to its parent (>= 1), image + 1 (0: none), its
// address (AddressCoder) and its samples. About 6 bytes a node instead of 32.
ChainNode decode_node(Cursor& cursor, uint32_t index, AddressCoder& addresses) {
  const uint64_t back = cursor.varint("node parent");
  if (back == 0) {
    const uint64_t stop = cursor.varint("root stop");
    if (stop > 0xffff) cursor.fail(cursor.position(), "root stop out of range");
    return ChainNode{
        kChainNoParent, kChainRoot, static_cast<uint16_t>(stop), kChainNoImage, 0, 0, 0};
  }
  if (back > index)
    cursor.fail(cursor.position(),
                "node " + std::to_string(index) + ": parent does not come before it");
  const uint64_t image = cursor.varint("node image");
  if (image > kChainNoImage) cursor.fail(cursor.position(), "node image out of range");
  ChainNode node{static_cast<uint32_t>(index - back),
                 kChainFrame,
                 0,
                 image == 0 ? kChainNoImage : static_cast<uint32_t>(image - 1),
                 0,
                 0,
                 0};
  node.address = addresses.decode(cursor.varint("node address"));
  node.samples = cursor.varint("node samples");
  return node;
}

void encode_node(std::vector<uint8_t>& out, const ChainNode& node, uint32_t index,
                 AddressCoder& addresses) {
  if (node.kind == kChainRoot) {
    put_varint(out, 0);
    put_varint(out, node.stop);
    return;
  }
  put_varint(out, index - node.parent);
  put_varint(out, node.image == kChainNoImage ? 0 : uint64_t{node.image} + 1);
  put_varint(out, addresses.encode(node.address));
  put_varint(out, node.samples);
}

}  // namespace

const char* chain_stop_name(ChainStop stop) {
  switch (stop) {
    case ChainStop::kComplete:
      return "complete";
    case ChainStop::kNoCfi:
      return "no CFI";
    case ChainStop::kNoRegister:
      return "register not captured";
    case ChainStop::kSliceTooShort:
      return "stack slice too short";
    case ChainStop::kStackEnded:
      return "stack ended";
    case ChainStop::kBadCfi:
      return "CFI not understood";
    case ChainStop::kNoImage:
      return "no image";
    case ChainStop::kKernel:
      return "kernel (no unwind tables)";
    case ChainStop::kDepthLimit:
      return "depth limit";
    case ChainStop::kNoProgress:
      return "no progress";
    case ChainStop::kNoElf:
      return "no ELF file";
    case ChainStop::kCount:
      break;
  }
  return "?";
}

uint64_t ChainProfile::samples() const {
  uint64_t total = 0;
  for (const ChainNode& node : nodes) total += node.samples;
  return total;
}

ChainProfile decode_chains(std::span<const uint8_t> bytes, const std::string& path) {
  const ContainerPrefix prefix = check_prefix(bytes, path, kChains);
  const auto header = load_record<ChainsHeader>(bytes, 0);
  for (uint32_t word : header.reserved)
    if (word != 0) throw ProfileFormatError(path, 52, "reserved header field not 0");
  if (header.flags != 0) throw ProfileFormatError(path, 24, "unknown flags");
  if (header.machine > 1)
    throw ProfileFormatError(path, 26, "unknown machine " + std::to_string(header.machine));
  check_header_bytes(prefix, kChains, header.string_bytes, bytes, path);
  const size_t end = check_trailer(bytes, prefix.header_bytes, path, kChains);
  if (header.node_count > kMaxNodes) throw ProfileFormatError(path, 20, "implausible node count");
  ChainProfile profile;
  profile.machine = header.machine;
  profile.dropped = header.dropped;
  profile.stack_bytes = header.stack_bytes;
  profile.images =
      decode_image_table(bytes, sizeof header, prefix.header_bytes, header.image_count, path);
  Cursor cursor(bytes, prefix.header_bytes, end, path);
  AddressCoder addresses{prefix.version};
  for (uint32_t i = 0; i < header.node_count; ++i) {
    const size_t offset = cursor.position();
    profile.nodes.push_back(decode_node(cursor, i, addresses));
    check_node(profile.nodes.back(), i, profile, offset, path);
  }
  if (!cursor.done())
    throw ProfileFormatError(path, cursor.position(), "bytes after the last node");
  if (profile.samples() != header.samples)
    throw ProfileFormatError(path, 32, "the nodes' samples do not add up to the header's");
  return profile;
}

std::vector<uint8_t> encode_chains(const ChainProfile& profile) {
  const std::vector<uint8_t> strings = encode_image_table(profile.images);
  ChainsHeader header{};
  const ContainerPrefix prefix = make_prefix(kChains, strings.size());
  std::memcpy(&header, &prefix, sizeof prefix);
  header.image_count = static_cast<uint32_t>(profile.images.size());
  header.node_count = static_cast<uint32_t>(profile.nodes.size());
  header.machine = profile.machine;
  header.string_bytes = static_cast<uint32_t>(strings.size());
  header.samples = profile.samples();
  header.dropped = profile.dropped;
  header.stack_bytes = profile.stack_bytes;
  std::vector<uint8_t> out;
  append_bytes(out, &header, sizeof header);
  out.insert(out.end(), strings.begin(), strings.end());
  AddressCoder addresses;
  for (uint32_t i = 0; i < profile.nodes.size(); ++i)
    encode_node(out, profile.nodes[i], i, addresses);
  seal(out, kChains);
  return out;
}

ChainProfile read_chains_file(const std::filesystem::path& file) {
  return decode_chains(read_file_bytes(file), file.string());
}

}  // namespace dcpi::profiledb
