#include "report_fixture.h"

#include <filesystem>

#include "profiledb/profile_db_writer.h"
#include "test_support.h"

namespace dcpi::testing {
namespace fs = std::filesystem;

ImageIdentity kernel_identity() { return {kKernelBuildId, "/kernel", 0x40, false}; }
ImageIdentity workload_identity(const std::string& build_id) {
  return {build_id, "/bin/dwarf_workload", 0x10000, false};
}
ImageIdentity unknown_identity() { return {"", "[unknown]", 0, true}; }

void write_report_database(const std::string& directory, const std::string& workload_build_id) {
  ProfileDatabaseWriter writer(directory);
  constexpr uint16_t kCycles = 0;
  // Epoch 1. Rows sorted by (pid, cpu, address) as the writer requires.
  writer.merge_profile(1, kernel_identity(), kCycles,
                       {{0, 0, kKernelEntry, 10},
                        {0, 0, kKernelEntry + 4, 5},
                        {0, 0, kIdleGap, 3},
                        {0, 0, kUnsizedTail + 4, 2},
                        {0, 1, kIdleLoop, 30}});
  writer.merge_profile(1, workload_identity(workload_build_id), kCycles,
                       {{7, 0, kAccumulate + 0x10, 25},
                        {7, 0, kAccumulate + 0x14, 15},
                        {7, 0, kCopyWords + 0xc, 8}});
  writer.merge_profile(1, unknown_identity(), kCycles, {{7, 1, 0x5000, 2}});
  // Epoch 2.
  writer.merge_profile(2, kernel_identity(), kCycles, {{0, 0, kIdleLoop + 4, 50}});
  writer.merge_profile(2, workload_identity(workload_build_id), kCycles,
                       {{8, 0, kAccumulate + 0x10, 50}});
  for (uint64_t epoch : {1, 2}) {
    EpochMetadata metadata;
    metadata.epoch = epoch;
    metadata.samples = 100;
    metadata.unknown_samples = epoch == 1 ? 2 : 0;
    writer.merge_epoch_metadata(metadata);
  }
}

std::string make_image_directory(const std::string& directory, bool stripped) {
  const std::string kernel =
      fixture_path(stripped ? "fake_kernel_stripped.elf" : "fake_kernel.elf");
  const std::string workload =
      fixture_path(stripped ? "dwarf_workload_stripped.elf" : "dwarf_workload.elf");
  if (kernel.empty() || workload.empty() || !fs::exists(workload)) return "";
  fs::create_directories(fs::path(directory) / "bin");
  fs::copy_file(kernel, fs::path(directory) / "kernel", fs::copy_options::overwrite_existing);
  fs::copy_file(workload, fs::path(directory) / "bin" / "dwarf_workload",
                fs::copy_options::overwrite_existing);
  return directory;
}

}  // namespace dcpi::testing
