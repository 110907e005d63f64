// `dcpi run --output GUEST:HOST` (issue 29): files the programs wrote in the
// guest, copied back to the host. The kernel sends each asked file on the
// host channel when init exits (kernel/host_output.h: dcpi-output-begin
// SIZE PATH, dcpi-output-data HEX, dcpi-output-end, or dcpi-output-missing
// PATH); this decodes them.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace dcpi {

struct GuestOutput {
  std::string guest;  // the path in the guest (no ',' or blank: kernel output=)
  std::string host;   // where it goes
};

// Parses one --output value; throws std::invalid_argument naming what is wrong.
GuestOutput parse_guest_output(const std::string& value);

// Writes every asked file found in `host_messages` to its host path; says
// on `report` what it wrote and what is missing. False if any is missing,
// cut short or cannot be written.
bool write_guest_outputs(const std::string& host_messages, const std::vector<GuestOutput>& outputs,
                         std::ostream& report);

}  // namespace dcpi
