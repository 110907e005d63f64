// A profile database with a known, hand-checked content for the report tests,
// written with the real writer (profiledb/profile_db_writer.h) over the Alpha
// ELF fixtures. Numbers (see report_fixture.cpp for the rows):
//
//   epoch 1 (100 samples)                    epoch 2 (100 samples)
//   accumulate    40  /bin/dwarf_workload    accumulate 50 (pid 8, cpu 0)
//   idle_loop     33  /kernel (30 + 3 in the 20-byte gap after it)
//   kernel_entry  15  /kernel                idle_loop  50 (pid 0, cpu 0)
//   copy_words     8  /bin/dwarf_workload
//   unsized_tail   2  /kernel
//   [unknown]      2  raw PC 0x5000
#pragma once
#include <cstdint>
#include <string>

#include "profiledb/profile_db.h"

namespace dcpi::testing {

inline constexpr uint64_t kKernelText = 0xfffffc0000310000;  // fake_kernel.S linked here
inline constexpr uint64_t kKernelEntry = kKernelText;        // 16 bytes
inline constexpr uint64_t kIdleLoop = kKernelText + 0x10;    // 12 bytes, then a 20-byte gap
inline constexpr uint64_t kIdleGap = kKernelText + 0x20;
inline constexpr uint64_t kUnsizedTail = kKernelText + 0x30;
inline constexpr uint64_t kUserText = 0x120000000;  // dwarf_workload.c linked here
inline constexpr uint64_t kAccumulate = kUserText;  // hot load at +0x10 is line 8
inline constexpr uint64_t kCopyWords = kUserText + 0x28;
inline constexpr const char* kKernelBuildId = "0123456789abcdef";
inline constexpr const char* kWorkloadBuildId = "feedc0de12345678";

ImageIdentity kernel_identity();
ImageIdentity workload_identity(const std::string& build_id = kWorkloadBuildId);
ImageIdentity unknown_identity();

// Writes the database above into `directory`; `workload_build_id` lets a test
// record a build-id that does not match the fixture.
void write_report_database(const std::string& directory,
                           const std::string& workload_build_id = kWorkloadBuildId);

// A directory holding the fixtures under the names the guest reported
// ("kernel" and "bin/dwarf_workload"), for --images. Empty if the cross
// toolchain was missing.
std::string make_image_directory(const std::string& directory, bool stripped = false);

}  // namespace dcpi::testing
