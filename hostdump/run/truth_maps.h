// The truth's address spaces, named (firmware/truth_format.h, version 5):
// the ev5 plugin keys user code by (PID, generation) but cannot know which
// images each space had; the run has the load map, so after QEMU exits it
// appends a `map` line per image of every space. The file is rewritten
// through PATH.tmp and renamed, as the plugin wrote it: a reader never sees
// half of it.
#pragma once
#include <filesystem>

#include "hostdump/load_map_model.h"

namespace dcpi {

// Appends the `map` lines to a version-5 truth file (older versions have no
// spaces: left alone). Throws std::runtime_error when the file cannot be
// read or written.
void add_truth_maps(const std::filesystem::path& truth, const LoadMapModel& load_map);

}  // namespace dcpi
