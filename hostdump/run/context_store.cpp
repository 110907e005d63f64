#include "hostdump/run/context_store.h"

#include <filesystem>
#include <stdexcept>

#include "hostdump/context_attribution.h"
#include "profiledb/context_file.h"
#include "profiledb/path_file.h"

namespace dcpi {

void store_run_contexts(const RunRequest& request, const ProfileBuilder& builder,
                        ProfileDatabaseWriter& writer, RunResult& result) {
  const std::filesystem::path raw_file = request.contexts_raw;
  if (!std::filesystem::exists(raw_file))
    throw std::runtime_error("--contexts: the contexts plugin wrote no " + raw_file.string());
  const profiledb::ContextProfile raw = profiledb::read_contexts_file(raw_file);
  std::filesystem::remove(raw_file);
  const auto& epochs = builder.written_epochs();
  if (epochs.empty())  // an epoch directory without epoch.meta would be debris
    throw std::runtime_error("--contexts: the run stored no epoch to keep the contexts in");
  const uint64_t epoch = *epochs.rbegin();
  const profiledb::ContextProfile attributed = attribute_contexts(raw, builder.load_map());
  writer.store_contexts(epoch, profiledb::encode_contexts(attributed));
  result.context_threads = attributed.threads.size();
  result.context_nodes = attributed.nodes.size();
  result.contexts_epoch = epoch;
}

void store_run_paths(const RunRequest& request, const ProfileBuilder& builder,
                     ProfileDatabaseWriter& writer, RunResult& result) {
  const std::filesystem::path raw_file = request.paths_raw;
  if (!std::filesystem::exists(raw_file))
    throw std::runtime_error("--paths: the plugin wrote no " + raw_file.string());
  const profiledb::PathProfile raw = profiledb::read_paths_file(raw_file);
  std::filesystem::remove(raw_file);
  const auto& epochs = builder.written_epochs();
  if (epochs.empty())
    throw std::runtime_error("--paths: the run stored no epoch to keep the paths in");
  const uint64_t epoch = *epochs.rbegin();
  const profiledb::PathProfile attributed = attribute_paths(raw, builder.load_map());
  writer.store_paths(epoch, profiledb::encode_paths(attributed));
  result.path_count = attributed.paths.size();
  result.paths_epoch = epoch;
}

}  // namespace dcpi
