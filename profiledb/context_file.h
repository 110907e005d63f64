// The calling-context file of an epoch (epoch-N/contexts.cct): the exact
// calling context tree of every thread (seed 002 §3), in the layout of
// firmware/contexts_format.h inside the database's container framing
// (container.h). The contexts plugin writes it with raw PCs; `dcpi run
// --contexts` attributes it (images, ELF addresses) and stores it here.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "firmware/contexts_format.h"
#include "profiledb/image_table.h"

namespace dcpi::profiledb {

inline constexpr const char* kContextsFileName = "contexts.cct";

struct ContextProfile {
  uint16_t machine = DCPI_CONTEXTS_MACHINE_QEMU;
  bool attributed = false;  // addresses are (image, ELF address), not raw PCs
  std::vector<ContextImage> images;
  std::vector<DcpiContextThread> threads;
  std::vector<DcpiContextNode> nodes;  // parents first
};

// Checks everything (framing, CRC, counts against the size, node order,
// parents, kinds, image indices, reserved fields, roots owned by one thread
// each); any problem is a ProfileFormatError "PATH: at offset N: problem".
ContextProfile decode_contexts(std::span<const uint8_t> bytes, const std::string& path);
std::vector<uint8_t> encode_contexts(const ContextProfile& profile);

ContextProfile read_contexts_file(const std::filesystem::path& file);

}  // namespace dcpi::profiledb
