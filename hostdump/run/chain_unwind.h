// dcpi run -g (issue 28 item 2): the sink the run plugs into the
// ProfileBuilder. Each chain sample (registers + stack slice, hostdump/
// chains/chain_payload.h) is unwound as it arrives, with the load map of
// that moment and each image's DWARF CFI (symbols/cfi_unwinder.h), and
// added to one CCT-like store of chains (profiledb/chain_file.h): node =
// (parent, image, ELF address), samples counted at the leaf, the root
// saying how the chain ended. After QEMU exits the store goes into the
// run's last epoch as chains.cct.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

#include "hostdump/chains/chain_payload.h"
#include "hostdump/profile_builder.h"
#include "hostdump/run/profiled_run.h"
#include "profiledb/chain_file.h"
#include "profiledb/image_catalog.h"
#include "profiledb/profile_db_writer.h"
#include "symbols/cfi_unwinder.h"
#include "symbols/image_resolver.h"

namespace dcpi {

class ChainUnwinder : public ChainSink {
 public:
  // `images`: where the booted images' ELF files are (the image catalog of
  // the run); `machine`: 0 qemu, 1 ev5.
  ChainUnwinder(std::vector<RecordedImage> images, uint32_t stack_bytes, uint16_t machine);
  void add(const ChainSample& sample, const LoadMapModel& load_map) override;
  void add_dropped(uint64_t epoch, uint64_t samples) override;
  // The store so far, its images named from `load_map`.
  profiledb::ChainProfile profile(const LoadMapModel& load_map) const;

 private:
  struct Frame {
    uint32_t image;
    uint64_t address;
  };
  profiledb::ChainStop unwind(const ChainSample& sample, const LoadMapModel& load_map,
                              std::vector<Frame>& frames);
  bool in_entry_code(uint32_t image_id, uint64_t address, const LoadMapModel& load_map);
  const CfiTable* table_for(uint32_t image_id, const LoadMapModel& load_map,
                            profiledb::ChainStop* why);
  uint32_t node(uint32_t parent, uint32_t image, uint64_t address);

  ImageResolver resolver_;
  uint32_t stack_bytes_;
  uint16_t machine_;
  uint64_t dropped_ = 0;
  std::map<uint32_t, std::unique_ptr<CfiTable>> tables_;  // null: no ELF or no CFI
  std::map<uint32_t, profiledb::ChainStop> table_problem_;
  std::vector<profiledb::ChainNode> nodes_;
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, uint32_t> index_;
  std::map<uint16_t, uint32_t> roots_;  // by ChainStop
};

// Stores the run's chains in its last epoch; fills result.chain_*.
void store_run_chains(const ChainUnwinder& unwinder, const ProfileBuilder& builder,
                      ProfileDatabaseWriter& writer, RunResult& result);

}  // namespace dcpi
