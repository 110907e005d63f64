// The run's capture configuration (seed 001 §2.4) from the loaded
// customization modules and the user's --values-capture, and its kernel
// command-line form (vcapture=, parsed in the guest by
// dcpi::parse_capture_spec in firmware/value_tuples.h).
#pragma once
#include <span>
#include <string>

#include "hostdump/values/customization_module.h"
#include "firmware/value_tuples.h"

namespace dcpi::values {

// The union of the requests: fields OR-ed per opcode, context if any asks.
// Throws std::invalid_argument if two requests name different registers.
ValueCapture combine_captures(std::span<const CaptureRequest> requests);

// A vcapture= spec as a request; throws std::invalid_argument if malformed.
CaptureRequest request_from_spec(const std::string& spec);

// The shortest-ish spec: the most common per-opcode fields first, then the
// opcodes that differ ("XX=letters"), "ctx", "reg=N".
std::string format_capture_spec(const ValueCapture& capture);

}  // namespace dcpi::values
