// `dcpi ingest --gdb`: DCPI's daemon attached to a guest someone else
// started (DCPI §4.3): QEMU's GDB stub, the ring source and the one pull loop
// (hostdump/session.h), paced by a timer instead of a QEMU it watches.
#pragma once
#include <cstdint>
#include <string>

#include "hostdump/profile_builder.h"
#include "hostdump/transfer_records.h"
#include "symbols/elf_symbols.h"

namespace dcpi {

class ProfileDatabaseWriter;

struct LiveIngestRequest {
  const ElfSymbols* kernel = nullptr;  // the kernel QEMU runs (dcpi_control for a flush)
  uint64_t ring_address = 0;           // physical address of dcpi_transfer_ring
  std::string stub;                    // QEMU's stub: HOST:PORT
  double duration_seconds = 0;         // keep pulling this long; 0: one pull
  double interval_seconds = 1.0;       // between pulls, the VM runs
  double timeout_seconds = 5.0;        // for any answer from the stub
  bool flush = false;  // first ask the driver to flush its hash tables (control block)
  bool resume = true;  // let the VM run again afterwards (detach)
};

// Throws std::invalid_argument naming a malformed stub address (HOST:PORT,
// tcp:HOST:PORT, :PORT); the caller checks it before anything else is done.
void check_stub_address(const std::string& text);

// Pulls, attributes and merges until the duration is over. The stub is left
// (and the VM resumed unless asked not to) on every path out.
DecodeStats ingest_live(const LiveIngestRequest& request, ProfileBuilder& builder,
                        ProfileDatabaseWriter& writer);

}  // namespace dcpi
