// Decoding of kValues record payloads (firmware/value_tuples.h, format 2;
// docs/transfer-format.md): runs of variable-size tuples, each captured with
// the fields the configuration asked for (seed 001 §2.4), into the decoded
// ValueTuple form customization modules read.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "firmware/value_tuples.h"

namespace dcpi::values {

struct DecodedValues {
  std::vector<ValueTuple> tuples;  // every run's tuples, in order
  std::vector<uint32_t> run_ends;  // one past each run's last tuple in `tuples`
  uint64_t dropped = 0;            // tuples the guest dropped since its previous record
};

// Decodes one payload; false (and `out` unspecified) if anything in it is
// malformed: wrong format, a size that disagrees with the header, a run or
// tuple that overruns the payload, unknown flag or field bits, a tuple
// without its head field, indices that do not increase within the run.
bool decode_values_payload(std::span<const uint8_t> payload, DecodedValues& out);

}  // namespace dcpi::values
