#include "analysis/samples/path_profile.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <tuple>

#include "profiledb/profile_db.h"

namespace dcpi {
namespace {

using PathIdentity = std::tuple<std::string, std::string, uint64_t, uint64_t,
                                std::vector<std::pair<uint64_t, uint64_t>>>;

ContextCosts costs_of(const DcpiPathRecord& record) {
  return ContextCosts{record.count,         record.instructions,  record.cycles,
                      record.dcache_misses, record.icache_misses, record.dtb_misses,
                      record.mispredicts};
}

std::string hex(uint64_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

// The procedure a path runs in: its entry's symbol (the root activation,
// entry 0, is named by its start).
std::pair<std::string, uint64_t> procedure_of(const profiledb::PathProfile& profile,
                                              const DcpiPathRecord& record,
                                              ImageResolver& resolver) {
  const uint64_t address = record.procedure ? record.procedure : record.start;
  const profiledb::ContextImage& image = profile.images[record.image];
  const ResolvedImage& resolved =
      resolver.resolve(ImageIdentity{image.build_id, image.path, 0, false});
  if (resolved.elf)
    if (const auto procedure = resolved.elf->procedure_at(address))
      return {procedure->name, record.procedure ? record.procedure : procedure->start};
  return {hex(address), record.procedure};
}

class PathMerger {
 public:
  explicit PathMerger(PathSet& set) : set_(set) {}
  void add(const profiledb::PathProfile& profile, const DcpiPathRecord& record,
           ImageResolver& resolver) {
    const profiledb::ContextImage& image = profile.images[record.image];
    ExecutedPath path{record.start, record.end, {}};
    for (uint32_t i = 0; i < record.edge_count; ++i) {
      const DcpiPathEdge& edge = profile.edges[record.first_edge + i];
      path.edges.emplace_back(edge.from, edge.to);
    }
    const auto [procedure, entry] = procedure_of(profile, record, resolver);
    const auto [it, added] = index_.try_emplace(
        PathIdentity{image.build_id, image.path, record.start, record.end, path.edges},
        set_.paths.size());
    if (added) {
      const auto [image_index, inserted] = images_.try_emplace(image.path, images_.size());
      set_.paths.push_back(ProfiledPath{procedure,
                                        image.path,
                                        image.build_id,
                                        static_cast<uint32_t>(image_index->second),
                                        entry,
                                        std::move(path),
                                        {},
                                        record.procedure != 0});
    }
    set_.paths[it->second].costs += costs_of(record);
  }

 private:
  PathSet& set_;
  std::map<PathIdentity, size_t> index_;
  std::map<std::string, size_t> images_;
};

bool selected(const std::optional<std::vector<uint64_t>>& epochs, uint64_t epoch) {
  return !epochs || std::find(epochs->begin(), epochs->end(), epoch) != epochs->end();
}

}  // namespace

PathSet load_paths(const std::string& database, const PathRequest& request,
                   ImageResolver& resolver) {
  const ProfileDatabase db = ProfileDatabase::open(database);
  PathSet set;
  PathMerger merger(set);
  for (uint64_t epoch : db.epochs()) {
    if (!selected(request.epochs, epoch)) continue;
    const auto file = db.directory() / epoch_directory_name(epoch) / profiledb::kPathsFileName;
    if (!std::filesystem::exists(file)) continue;
    const profiledb::PathProfile profile = profiledb::read_paths_file(file);
    const std::optional<ProcessTable> table = db.process_table(epoch);
    set.machine = profile.machine;
    ++set.epochs;
    for (const DcpiPathRecord& record : profile.paths) {
      const uint32_t process = table ? table->process_of(record.pid) : record.pid;
      if (request.pid && process != *request.pid) continue;
      if (record.image == DCPI_PATHS_NO_IMAGE) continue;  // code no image claims
      merger.add(profile, record, resolver);
    }
  }
  if (set.epochs == 0)
    throw std::runtime_error("no path profiles in " + database +
                             " (record them with dcpi run --paths)");
  return set;
}

std::vector<ProcedurePaths> procedure_paths(const PathSet& set, const std::string& name,
                                            ContextMetric metric) {
  std::map<std::tuple<uint32_t, uint64_t, bool>, std::vector<const ProfiledPath*>> by_procedure;
  for (const ProfiledPath& path : set.paths)
    if (path.procedure == name)
      by_procedure[{path.image_index, path.entry, path.entry_known}].push_back(&path);
  std::vector<ProcedurePaths> out;
  for (const auto& [key, paths] : by_procedure) {
    std::vector<ExecutedPath> executed;
    for (const ProfiledPath* path : paths) executed.push_back(path->path);
    const PathNumbering numbering = number_paths(executed);
    ProcedurePaths procedure{name,
                             paths.front()->image,
                             paths.front()->build_id,
                             std::get<1>(key),
                             numbering.potential,
                             numbering.blocks,
                             {},
                             {}};
    for (size_t i = 0; i < paths.size(); ++i) {
      procedure.paths.push_back(ProcedurePath{numbering.paths[i].number,
                                              numbering.paths[i].blocks,
                                              {},
                                              paths[i]->path.start == std::get<1>(key),
                                              paths[i]->costs});
      procedure.total += paths[i]->costs;
    }
    std::stable_sort(procedure.paths.begin(), procedure.paths.end(),
                     [&](const ProcedurePath& a, const ProcedurePath& b) {
                       return a.costs.get(metric) > b.costs.get(metric);
                     });
    out.push_back(std::move(procedure));
  }
  return out;
}

void add_source_lines(std::vector<ProcedurePaths>& procedures, ImageResolver& resolver) {
  for (ProcedurePaths& procedure : procedures) {
    const ResolvedImage& resolved =
        resolver.resolve(ImageIdentity{procedure.build_id, procedure.image, 0, false});
    for (ProcedurePath& path : procedure.paths) {
      path.lines.clear();
      for (const auto& [first, last] : path.blocks) {
        std::optional<SourceLocation> at;
        if (resolved.elf) at = resolved.elf->source_at(first);
        path.lines.push_back(at ? std::filesystem::path(at->file).filename().string() + ":" +
                                      std::to_string(at->line)
                                : "");
      }
    }
  }
}

HotPathTable hot_path_table(const PathSet& set, ContextMetric metric, double threshold) {
  HotPathTable table;
  table.metric = metric;
  table.threshold = threshold;
  for (const ProfiledPath& path : set.paths) {
    table.total += path.costs.get(metric);
    table.instructions += path.costs.instructions;
  }
  table.executed = set.paths.size();
  const double average = table.instructions ? double(table.total) / double(table.instructions) : 0;
  auto add = [&](PathCategory& category, const ProfiledPath& path) {
    ++category.paths;
    if (table.instructions)
      category.instruction_share += double(path.costs.instructions) / double(table.instructions);
    if (table.total) category.metric_share += double(path.costs.get(metric)) / double(table.total);
  };
  for (const ProfiledPath& path : set.paths) {
    const uint64_t value = path.costs.get(metric);
    const bool hot = table.total && double(value) >= threshold * double(table.total);
    if (!hot) {
      add(table.cold, path);
      continue;
    }
    add(table.hot, path);
    const double ratio =
        path.costs.instructions ? double(value) / double(path.costs.instructions) : 0;
    add(ratio >= average ? table.dense : table.sparse, path);
  }
  return table;
}

}  // namespace dcpi
