// The sampled call-chain file of an epoch (epoch-N/chains.cct, issue 28
// item 2): the chains `dcpi run -g` unwound, kept compactly as a shared
// CCT-like store (one node per distinct (parent, image, address), not one
// copy per sample), each sample counted at its leaf node. Described in
// docs/profile-db.md ("Sampled call chains").
//
// Layout inside the database's container framing (container.h): the fixed
// header, the image strings (as contexts.cct: per image u16 build-id length,
// u16 path length, the lower-case hex build-id, the path), then node_count
// nodes as LEB128 varints, parents first (a root: 0, stop; a frame: the
// distance back to its parent, image + 1, its address as a zigzag delta
// from the previous frame node's, samples), then CRC-32C and the trailer
// magic. ChainNode is the decoded form.
//
// A chain is the path root -> outermost frame -> ... -> leaf. The root says
// how the chain ended (ChainStop): "complete" when the CFI marked the
// outermost frame, else why unwinding stopped, so a truncated chain is kept
// and told apart, never guessed. Frame nodes: the leaf's address is the
// sampled PC, a caller's is its call instruction (return address - 4),
// both as ELF addresses in their image.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "profiledb/image_table.h"

namespace dcpi::profiledb {

inline constexpr const char* kChainsFileName = "chains.cct";
inline constexpr char kChainsMagic[] = "DCPICHNS";
// 2: a frame's address is a zigzag delta from the frame node before it
// (1: the address itself; still read).
inline constexpr uint32_t kChainsVersion = 2;
inline constexpr uint32_t kChainsOldestVersion = 1;
inline constexpr uint32_t kChainsTrailerMagic = 0x4e484344u;  // "DCHN"
inline constexpr uint32_t kChainNoParent = 0xffffffffu;
inline constexpr uint32_t kChainNoImage = 0xffffffffu;

// How a chain ended (a root node's `stop`).
enum class ChainStop : uint16_t {
  kComplete = 0,       // the CFI says the outermost frame has no caller
  kNoCfi = 1,          // a frame's image has no CFI row for its PC
  kNoRegister = 2,     // the CFI needed a register the driver does not capture
  kSliceTooShort = 3,  // a saved register lay beyond the copied stack slice
  kStackEnded = 4,     // ... beyond the stack's last mapped page (the slice stopped there)
  kBadCfi = 5,         // a CFI expression this unwinder does not evaluate
  kNoImage = 6,        // a frame's PC lies in no image the load map knows
  kKernel = 7,         // a kernel-mode sample of a kChains format 2 record (no kernel stack then)
  kDepthLimit = 8,     // kMaxChainDepth frames
  kNoProgress = 9,     // a step that did not move the stack up (corrupt data)
  kNoElf = 10,         // the image's ELF file was not found on the host
  kCount = 11,
};
const char* chain_stop_name(ChainStop stop);
inline constexpr uint32_t kMaxChainDepth = 128;

enum ChainNodeKind : uint16_t { kChainRoot = 0, kChainFrame = 1 };

struct ChainsHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_bytes;  // fixed part + string_bytes
  uint32_t image_count;
  uint32_t node_count;
  uint16_t flags;    // 0
  uint16_t machine;  // 0 qemu, 1 ev5 (as contexts.cct)
  uint32_t string_bytes;
  uint64_t samples;      // chain samples stored (the nodes' samples add up to it)
  uint64_t dropped;      // chain samples the guest could not keep (its buffer was full)
  uint32_t stack_bytes;  // the slice size the run asked for
  uint32_t reserved[3];
};
static_assert(sizeof(ChainsHeader) == 64);

struct ChainNode {
  uint32_t parent;  // kChainNoParent for a root
  uint16_t kind;    // ChainNodeKind
  uint16_t stop;    // a root's ChainStop; 0 for frames
  uint32_t image;   // a frame's image index, or kChainNoImage
  uint32_t reserved;
  uint64_t address;  // a frame's ELF address (raw PC without an image); 0 for roots
  uint64_t samples;  // samples whose chain ends (leaf) here; 0 for roots
};
static_assert(sizeof(ChainNode) == 32);

using ChainImage = ContextImage;  // the same image table (image_table.h)

struct ChainProfile {
  uint16_t machine = 0;
  uint64_t dropped = 0;
  uint32_t stack_bytes = 0;
  std::vector<ChainImage> images;
  std::vector<ChainNode> nodes;  // parents first
  uint64_t samples() const;
};

// Checks framing, CRC, counts, node order and parents, kinds, stops, image
// indices, reserved fields and the sample total; any problem is a
// ProfileFormatError "PATH: at offset N: problem".
ChainProfile decode_chains(std::span<const uint8_t> bytes, const std::string& path);
std::vector<uint8_t> encode_chains(const ChainProfile& profile);
ChainProfile read_chains_file(const std::filesystem::path& file);

}  // namespace dcpi::profiledb
