#include "hostdump/context_attribution.h"

#include <map>
#include <tuple>

namespace dcpi {
namespace {

// Images of the load map, renumbered in the order the tree first uses them.
class ImageTable {
 public:
  explicit ImageTable(const LoadMapModel& load_map) : load_map_(load_map) {}

  // Places (pid, pc): the image's index in `images` and the ELF address.
  std::pair<uint32_t, uint64_t> place(uint32_t pid, uint64_t pc,
                                      std::vector<profiledb::ContextImage>& images) {
    if (pc == 0) return {DCPI_CONTEXTS_NO_IMAGE, 0};
    const std::optional<Placement> placed = load_map_.place(pid, pc);
    if (!placed) return {DCPI_CONTEXTS_NO_IMAGE, pc};
    const auto [it, inserted] =
        indices_.try_emplace(placed->image_id, static_cast<uint32_t>(images.size()));
    if (inserted) {
      const ImageIdentity& image = load_map_.images()[placed->image_id];
      images.push_back({image.build_id, image.path});
    }
    return {it->second, placed->address};
  }

 private:
  const LoadMapModel& load_map_;
  std::map<uint32_t, uint32_t> indices_;
};

}  // namespace

profiledb::ContextProfile attribute_contexts(const profiledb::ContextProfile& raw,
                                             const LoadMapModel& load_map) {
  profiledb::ContextProfile out = raw;
  out.attributed = true;
  out.images.clear();
  // A node's pid is its root's thread's: parents come first (context_file.h).
  std::vector<uint32_t> pid(raw.nodes.size());
  for (const DcpiContextThread& thread : raw.threads) pid[thread.root] = thread.pid;
  ImageTable table(load_map);
  for (size_t i = 0; i < out.nodes.size(); ++i) {
    DcpiContextNode& node = out.nodes[i];
    if (node.parent != DCPI_CONTEXTS_NO_PARENT) pid[i] = pid[node.parent];
    std::tie(node.image, node.address) = table.place(pid[i], node.address, out.images);
    std::tie(node.site_image, node.call_site) = table.place(pid[i], node.call_site, out.images);
  }
  return out;
}

profiledb::PathProfile attribute_paths(const profiledb::PathProfile& raw,
                                       const LoadMapModel& load_map) {
  profiledb::PathProfile out = raw;
  out.attributed = true;
  out.images.clear();
  ImageTable table(load_map);
  for (DcpiPathRecord& path : out.paths) {
    const uint64_t start = path.start;
    std::tie(path.image, path.start) = table.place(path.pid, start, out.images);
    if (path.image == DCPI_PATHS_NO_IMAGE) continue;
    const uint64_t offset = path.start - start;  // modulo 2^64: ELF = guest + offset
    if (path.procedure != 0) path.procedure += offset;
    path.end += offset;
    for (uint32_t i = 0; i < path.edge_count; ++i) {
      DcpiPathEdge& edge = out.edges[path.first_edge + i];
      edge.from += offset;
      edge.to += offset;
    }
  }
  return out;
}

}  // namespace dcpi
