#include "hostdump/run/machine_files.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "firmware/control_block.h"
#include "profiledb/tab_text.h"

namespace dcpi {
namespace {

// A file of the machines (the patched QEMU, the TCG plugins): build/qemu/ in
// a build tree, PREFIX/lib/dcpi for an installed dcpi (install.cmake).
std::optional<std::filesystem::path> machine_file(const std::filesystem::path& build,
                                                  const std::string& name) {
  std::error_code error;
  for (const auto& directory : {build / "qemu", build.parent_path().parent_path() / "lib" / "dcpi"})
    if (std::filesystem::exists(directory / name, error)) return directory / name;
  return std::nullopt;
}

// Whether the build tree was configured with the ev5 machine (the default),
// so that its target ev5-qemu exists.
bool configured_with_ev5(const std::filesystem::path& build) {
  std::ifstream cache(build / "CMakeCache.txt");
  for (std::string line; std::getline(cache, line);)
    if (line.rfind("DCPI_EV5:", 0) == 0) return line.ends_with("=ON");
  return false;
}

std::string required_machine_file(const std::filesystem::path& build, const std::string& name,
                                  const std::string& what) {
  if (const auto found = machine_file(build, name)) return found->string();
  std::error_code error;
  if (std::filesystem::is_symlink(build / "qemu" / name, error) || configured_with_ev5(build))
    // Configured, not built: the first ./run.sh skips it (issue 31).
    throw std::runtime_error("the ev5 machine needs " + what + ", not built yet: cmake --build " +
                             build.string() + " --target ev5-qemu (about 5 minutes the first " +
                             "time; ./test.sh builds it too)");
  throw std::runtime_error("the ev5 machine needs " + what + " (" + name + ", looked in " +
                           (build / "qemu").string() +
                           "): build it with qemu/machine/build-qemu.sh " +
                           "and reconfigure (cmake -S . -B build -DDCPI_EV5=ON)");
}

// Several vCPUs on the qemu machine: Debian's QEMU 10.0.2 bakes the vCPU
// that translated a block into the block's plugin callbacks when it runs
// without CF_PARALLEL, as round-robin icount does, although the vCPUs share
// blocks: a plugin that follows each CPU's thread (the calling contexts and
// paths) then books one CPU's calls to another. Our patched QEMU loads the
// index at run time (docs/ev5-machine.md "SMP: one virtual clock"); without
// the ev5 plugin it times nothing differently.
void use_patched_qemu_on_several_cpus(RunRequest& request, const std::filesystem::path& build,
                                      const std::string& option) {
  if (request.machine.cpus <= 1 || !request.machine.qemu_binary.empty()) return;
  const auto patched = machine_file(build, "qemu-system-alpha-ev5");  // none: a dangling link
  if (!patched)
    throw std::runtime_error(option + " on " + std::to_string(request.machine.cpus) +
                             " CPUs needs our patched qemu-system-alpha (Debian's gives a " +
                             "plugin the wrong CPU under round-robin icount): cmake --build " +
                             build.string() + " --target ev5-qemu, or --cpus 1");
  request.machine.qemu_binary = patched->string();
}

}  // namespace

void choose_timing_machine(RunRequest& request, const std::filesystem::path& build,
                           const std::string& machine,
                           const std::optional<std::filesystem::path>& truth_file) {
  // QEMU's -plugin syntax: file=PLUGIN,out=TRUTH,images=LIST. The run
  // writes LIST (the images it boots, by build-id) before QEMU starts, and
  // the truth names them (firmware/truth_format.h, issue 30).
  std::string truth;
  if (truth_file) {
    const std::string absolute = std::filesystem::absolute(*truth_file).string();
    request.truth_images = absolute + ".images";
    request.truth_file = absolute;
    truth = ",out=" + absolute + ",images=" + request.truth_images;
  }
  // The model's truth says which cycles a sample can land on
  // (sample_visibility.h, issue 25), which depends on the periods drawn.
  const uint32_t period = request.period_base ? request.period_base : kDefaultPeriodBase;
  const uint32_t range = request.period_base ? request.period_range : kDefaultPeriodRange;
  const std::string window = truth_file && request.profile
                                 ? ",sampling=1,period=" + std::to_string(period) +
                                       ",period_range=" + std::to_string(range)
                                 : "";
  request.timing_machine = machine;  // recorded with every epoch (epoch.meta machine)
  if (machine == "ev5") {
    request.machine.qemu_binary =
        required_machine_file(build, "qemu-system-alpha-ev5", "our patched qemu-system-alpha");
    request.machine.plugins.push_back(
        "file=" + required_machine_file(build, "libdcpi_ev5.so", "the 21164 model plugin") + truth +
        window);
  } else if (!truth.empty()) {
    const auto plugin = machine_file(build, "libdcpi_exec_counts.so");
    if (!plugin) throw std::runtime_error("--truth needs libdcpi_exec_counts.so (not built)");
    request.machine.plugins.push_back("file=" + plugin->string() + truth);
    // exec_counts books each user PC with its CPU's current address space
    // (truth_space.h): with the wrong CPU, a process's code lands in another's.
    use_patched_qemu_on_several_cpus(request, build, "--truth");
  }
}

namespace {

// The ev5 model's plugin argument (choose_timing_machine added it).
std::string& ev5_plugin(RunRequest& request) {
  for (std::string& plugin : request.machine.plugins)
    if (plugin.find("libdcpi_ev5.so") != std::string::npos) return plugin;
  throw std::runtime_error("the ev5 machine's plugin is not loaded");
}

}  // namespace

void add_contexts_plugin(RunRequest& request, const std::filesystem::path& build) {
  request.contexts_raw = (std::filesystem::temp_directory_path() /
                          ("dcpi-contexts-" + std::to_string(::getpid()) + ".cct"))
                             .string();
  // On ev5 the model builds the trees itself, with its cycles and events
  // (qemu/machine/plugins/ev5/context_metrics.h).
  if (request.timing_machine == "ev5") {
    ev5_plugin(request) += ",contexts=" + request.contexts_raw;
    return;
  }
  const auto plugin = machine_file(build, "libdcpi_contexts.so");
  if (!plugin)
    throw std::runtime_error(
        "--contexts needs libdcpi_contexts.so (not built: QEMU's "
        "qemu-plugin.h or glib was not found)");
  use_patched_qemu_on_several_cpus(request, build, "--contexts");
  request.machine.plugins.push_back("file=" + plugin->string() + ",out=" + request.contexts_raw +
                                    ",machine=" + request.timing_machine);
}

void add_path_profiles(RunRequest& request, const std::filesystem::path& build) {
  request.paths_raw = (std::filesystem::temp_directory_path() /
                       ("dcpi-paths-" + std::to_string(::getpid()) + ".blp"))
                          .string();
  if (request.timing_machine == "ev5") {
    ev5_plugin(request) += ",paths=" + request.paths_raw;
    return;
  }
  // On qemu the contexts plugin follows the paths (one cycle per instruction).
  for (std::string& plugin : request.machine.plugins)
    if (plugin.find("libdcpi_contexts.so") != std::string::npos) {
      plugin += ",paths=" + request.paths_raw;
      return;
    }
  const auto plugin = machine_file(build, "libdcpi_contexts.so");
  if (!plugin)
    throw std::runtime_error(
        "--paths needs libdcpi_contexts.so (not built: QEMU's qemu-plugin.h or glib was not "
        "found)");
  use_patched_qemu_on_several_cpus(request, build, "--paths");
  request.machine.plugins.push_back("file=" + plugin->string() + ",paths=" + request.paths_raw +
                                    ",machine=" + request.timing_machine);
}

void set_model_parameters(RunRequest& request, const std::string& parameters) {
  // Each item NAME=UNSIGNED; the plugin knows the names and their ranges.
  for (const std::string_view item : split_fields(parameters, ',')) {
    const size_t equals = item.find('=');
    if (equals == 0 || equals == std::string_view::npos || equals + 1 == item.size() ||
        item.find_first_not_of("0123456789", equals + 1) != std::string_view::npos)
      throw std::invalid_argument("--model takes NAME=NUMBER items separated by commas, not '" +
                                  std::string(item) + "'");
  }
  ev5_plugin(request) += "," + parameters;
}

}  // namespace dcpi
