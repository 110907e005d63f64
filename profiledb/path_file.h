// The path-profile file of an epoch (epoch-N/paths.blp): every distinct
// Ball-Larus path the run's threads ran, with its count and metrics (seed
// 002 §2), in the layout of firmware/paths_format.h inside the database's
// container framing (container.h). The ev5 plugin writes it with raw PCs;
// `dcpi run --paths` attributes it (images, ELF addresses) and stores it.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "firmware/contexts_format.h"
#include "firmware/paths_format.h"
#include "profiledb/context_file.h"

namespace dcpi::profiledb {

inline constexpr const char* kPathsFileName = "paths.blp";

struct PathProfile {
  uint16_t machine = DCPI_CONTEXTS_MACHINE_EV5;
  bool attributed = false;  // addresses are (image, ELF address), not raw PCs
  std::vector<ContextImage> images;
  std::vector<DcpiPathRecord> paths;
  std::vector<DcpiPathEdge> edges;  // each path's are edges[first_edge, + edge_count)
};

// Checks everything (framing, CRC, counts against the size, edge ranges in
// bounds and in order, no fall-through as an edge, image indices, reserved fields, a
// path that ran at least once); any problem is a ProfileFormatError
// "PATH: at offset N: problem".
PathProfile decode_paths(std::span<const uint8_t> bytes, const std::string& path);
std::vector<uint8_t> encode_paths(const PathProfile& profile);

PathProfile read_paths_file(const std::filesystem::path& file);

}  // namespace dcpi::profiledb
