// The GDB-stub transport as a session source (hostdump/session.h): every
// collect() is one RingPuller pull while the VM is stopped; resume() and
// pause() let the VM run between pulls (DESIGN §6); the guest's tail moves
// only at acknowledge(), once the records are stored.
#pragma once
#include <cstdint>
#include <optional>

#include "hostdump/gdb/ring_puller.h"
#include "hostdump/session.h"

namespace dcpi {

class GdbClient;

class GdbRingSource : public RecordSource {
 public:
  // Physical addresses of the kernel symbols `dcpi_transfer_ring` and
  // (optional) `dcpi_guest_cycles`, resolved by the caller. The client must be
  // in physical memory mode with the VM stopped.
  GdbRingSource(GdbClient& client, uint64_t ring_address,
                std::optional<uint64_t> cycles_address = std::nullopt);

  Collected collect() override;
  // Advances the guest's tail past what was collected (VM stopped).
  void acknowledge() override;
  void resume() override;
  void pause() override;
  // The pull after the guest finished is the last: its final flush is in the ring.
  bool at_end(bool guest_done) override { return guest_done; }
  DecodeStats total_stats() const override { return puller_.total_stats(); }

 private:
  GdbClient& client_;
  RingPuller puller_;
  std::optional<uint64_t> cycles_address_;
};

}  // namespace dcpi
