// DCPI Figure 2's samples for the assembled copy loop (fixtures/copy_fig2.S)
// written as one epoch of a profile database with hostdump's writer: the
// synthetic profile the `dcpi calc` / `dcpi score` CLI tests read.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "calc/copy_loop_fixture.h"
#include "profiledb/profile_db_writer.h"

namespace dcpi::testing {

// Returns the epoch's samples. `machine` is recorded in epoch.meta;
// `guest_path` is the image's path in the guest.
inline uint64_t write_copy_fig2_epoch(const std::string& db, uint64_t epoch,
                                      const std::string& machine = std::string(kMachineQemu),
                                      const std::string& guest_path = "/bin/copy_fig2") {
  ProfileDatabaseWriter writer(db);
  const ImageIdentity image{.build_id = "00f1900002000000", .path = guest_path, .image_size = 80};
  std::vector<ProfileRow> rows;
  const std::vector<double> samples = calc::testing::copy_loop_samples();
  for (size_t i = 0; i < samples.size(); ++i)
    if (samples[i] > 0)
      rows.push_back({.pid = 7,
                      .cpu = 0,
                      .address = 0x9810 + 4 * i,
                      .count = static_cast<uint64_t>(samples[i])});
  writer.merge_profile(epoch, image, 0, rows);
  EpochMetadata meta{.epoch = epoch};
  for (const ProfileRow& row : rows) meta.samples += row.count;
  meta.cpu_stats[0] = {{"interrupts", meta.samples}};
  meta.machine = machine;
  writer.merge_epoch_metadata(meta);
  return meta.samples;
}

}  // namespace dcpi::testing
