// Reading the transfer ring and writing the control block through QEMU's GDB
// stub (DESIGN §6). The VM is stopped while the stub is attached, so the
// reads see a consistent ring: the guest writes head only after a complete
// record, the host writes tail only while the VM is stopped.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "firmware/control_block.h"
#include "firmware/transfer_ring.h"
#include "hostdump/transfer_records.h"

namespace dcpi {

class GdbClient;

struct RingPull {
  TransferRingHeader header{};  // as read, before the tail update
  std::vector<TransferRecord> records;
  DecodeStats stats;  // this pull only
  uint64_t bytes_read = 0;
  bool initialised = true;  // false: magic not set yet (guest still booting)
};

class RingPuller {
 public:
  // `ring_physical_address`: of `dcpi_transfer_ring` (kseg_to_physical of the
  // kernel symbol). The client must be in physical memory mode, VM stopped.
  RingPuller(GdbClient& client, uint64_t ring_physical_address);

  // Reads what is new since the last pull (from the guest's tail, or from
  // where the previous pull stopped if that is further) and decodes it. The
  // guest's tail is left alone: the guest may reuse the space only once the
  // records are stored (issue 18), see acknowledge().
  RingPull pull();
  // Writes the tail up to what the pulls so far decoded (`M` packet), after
  // the caller has stored their records durably. Nothing to do: no packet.
  void acknowledge();

  const DecodeStats& total_stats() const { return total_; }

 private:
  GdbClient& client_;
  uint64_t address_;
  SequenceTracker sequence_;
  DecodeStats total_;
  std::optional<uint64_t> consumed_to_;  // decoded up to here (ring position)
  uint64_t acknowledged_ = 0;            // the tail the guest last saw from us
};

// The control block at kernel symbol `dcpi_control` (firmware/control_block.h).
class ControlChannel {
 public:
  ControlChannel(GdbClient& client, uint64_t control_physical_address);

  ControlBlock read();
  // Fills command and args, then bumps request_sequence (two writes, in that
  // order). VM stopped. Returns the request's sequence number.
  uint64_t submit(ControlCommand command, uint64_t arg0 = 0, uint64_t arg1 = 0, uint64_t arg2 = 0);
  // The status once done_sequence has reached `sequence`.
  std::optional<int64_t> poll(uint64_t sequence);
  // submit(), then let the VM run in slices of `slice` until the daemon has
  // done it; throws GuestStateError after `timeout`. Returns the status.
  int64_t execute(ControlCommand command, uint64_t arg0, uint64_t arg1,
                  std::chrono::milliseconds timeout,
                  std::chrono::milliseconds slice = std::chrono::milliseconds(20));

 private:
  GdbClient& client_;
  uint64_t address_;
};

// "ok", "unknown command", ... for a ControlStatus value.
std::string control_status_text(int64_t status);

}  // namespace dcpi
