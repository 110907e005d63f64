// Attribution of the contexts plugin's raw calling context tree (guest PCs)
// to images and ELF addresses, with the run's load map (DCPI §4.3.2, the
// rules samples follow): what `dcpi run --contexts` stores in the database.
#pragma once
#include "hostdump/load_map_model.h"
#include "profiledb/context_file.h"
#include "profiledb/path_file.h"

namespace dcpi {

// Every address (a node's procedure and call site) placed in its thread's
// pid; one that no image claims keeps its raw PC with no image.
profiledb::ContextProfile attribute_contexts(const profiledb::ContextProfile& raw,
                                             const LoadMapModel& load_map);

// A path lies in one procedure: its start is placed in its pid, and its
// procedure, end and edges move by the same offset (a PC of another image,
// where a path jumps out of its procedure's image, keeps its offset from
// the start's image: the report shows it outside the procedure). A start no
// image claims keeps every raw PC, with no image.
profiledb::PathProfile attribute_paths(const profiledb::PathProfile& raw,
                                       const LoadMapModel& load_map);

}  // namespace dcpi
