// Records -> attribution -> database, for both sources `dcpi ingest` (and
// later `dcpi run`) reads: a recorded file and the live ring.
#pragma once
#include <cstdint>
#include <span>

#include "hostdump/profile_builder.h"
#include "hostdump/ring_puller.h"
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

// Feeds one live pull into `builder` (records, decoder counts, ring drops).
void ingest_pull(const RingPull& pull, ProfileBuilder& builder);

}  // namespace dcpi
