// `dcpi db merge OUT IN...`: many runs, one database. DCPI's database was
// shared by every machine a site profiled (§4.3.3); here runs spread over
// machines by an existing job runner (GNU parallel, a Slurm array) each write
// their own database, and this puts them together (docs/profile-db.md,
// "Merging databases").
//
// Epochs are renumbered 1, 2, ... in the order of the inputs and of their
// epochs, each keeping its metadata (epoch.meta) as it was, its profiles and
// its value files. An image keeps its identity (build-id + path), so the same
// image has the same file name in every epoch; the image catalogs (IMAGES)
// and recordings (RECORDINGS) are united, in the first epoch's batch (so
// OUT never holds an epoch without them). An input given twice, by path or
// as a copy with the same profiles, is refused. Each epoch is one writer batch
// (profile_db_writer.h): a kill mid-merge leaves OUT the epochs merged so far
// (plus, if it struck inside a batch, one epoch directory without epoch.meta
// that readers skip and `dcpi db check --repair` removes) and the inputs
// untouched, so nothing is lost.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace dcpi {

struct MergedEpoch {
  std::filesystem::path input;
  uint64_t input_epoch = 0;
  uint64_t output_epoch = 0;
  uint64_t samples = 0;
};

// Throws ProfileDatabaseError: OUT exists and is not an empty directory, an
// input is not a database, is being written or is given twice, or a write
// fails. `progress`
// (if set) is called after each epoch is stored.
std::vector<MergedEpoch> merge_databases(
    const std::filesystem::path& output, const std::vector<std::filesystem::path>& inputs,
    const std::function<void(const MergedEpoch&)>& progress = {});

}  // namespace dcpi
