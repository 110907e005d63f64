// dcpi run --contexts, after QEMU has exited: the contexts plugin's raw tree,
// attributed with the run's load map, stored in the run's last epoch.
#pragma once
#include "hostdump/profile_builder.h"
#include "hostdump/run/profiled_run.h"
#include "profiledb/profile_db_writer.h"

namespace dcpi {

// Fills result.context_*; removes the raw file. Throws std::runtime_error
// when the plugin left no file or a malformed one.
void store_run_contexts(const RunRequest& request, const ProfileBuilder& builder,
                        ProfileDatabaseWriter& writer, RunResult& result);
// dcpi run --paths: the ev5 plugin's raw path profiles, the same way.
void store_run_paths(const RunRequest& request, const ProfileBuilder& builder,
                     ProfileDatabaseWriter& writer, RunResult& result);

}  // namespace dcpi
