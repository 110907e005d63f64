// A recorded file -> attribution (`dcpi ingest --from-file`). Live sources
// (the ring through the GDB stub, the serial stream) go through the session
// loop instead (hostdump/session.h).
#pragma once
#include <cstdint>
#include <span>

#include "hostdump/profile_builder.h"
#include "hostdump/transfer_records.h"

namespace dcpi {

enum class RecordedFormat { kRingImage, kStream };

// A file starting with kTransferRingMagic is a ring image (TransferRingHeader
// + data, e.g. a memory dump of dcpi_transfer_ring); anything else is a
// capture of the serial stream.
RecordedFormat detect_recorded_format(std::span<const uint8_t> bytes);

// Decodes a recorded file into `builder`; returns the decoder counts (also
// charged to the builder's epochs). Throws GuestStateError for an
// inconsistent ring image header.
DecodeStats ingest_recorded(std::span<const uint8_t> bytes, ProfileBuilder& builder);

}  // namespace dcpi
