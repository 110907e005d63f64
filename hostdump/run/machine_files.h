// Which emulator and plugins a run's machine needs (issue 14): `qemu` is
// Debian's qemu-system-alpha, with the exact-count plugin when the truth is
// asked for; `ev5` is our patched build with the 21164 model plugin, which
// writes the truth itself (docs/ev5-machine.md). The files are in build/qemu/
// in a build tree, PREFIX/lib/dcpi for an installed dcpi (install.cmake).
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "hostdump/run/profiled_run.h"

namespace dcpi {

// Sets request.timing_machine, the QEMU binary and the timing or truth
// plugin for `machine` ("qemu" or "ev5", checked by the caller); the truth
// goes to `truth_file` if given. `build` is the build directory holding
// qemu/. Throws std::runtime_error naming a file that is not built.
void choose_timing_machine(RunRequest& request, const std::filesystem::path& build,
                           const std::string& machine,
                           const std::optional<std::filesystem::path>& truth_file);

// dcpi run --contexts (after choose_timing_machine), writing to
// request.contexts_raw: on qemu loads libdcpi_contexts.so beside the
// machine; on ev5 asks the model's plugin, which books its own metrics.
void add_contexts_plugin(RunRequest& request, const std::filesystem::path& build);
// dcpi run --paths (after choose_timing_machine and add_contexts_plugin):
// the ev5 model's plugin, or on qemu the contexts plugin, writes the path
// profiles to request.paths_raw.
void add_path_profiles(RunRequest& request, const std::filesystem::path& build);
// dcpi run --model NAME=VALUE,... (after choose_timing_machine): the ev5
// model's parameters (docs/ev5-machine.md), passed to its plugin, which
// checks names and ranges. Throws std::invalid_argument on a malformed list.
void set_model_parameters(RunRequest& request, const std::string& parameters);

}  // namespace dcpi
