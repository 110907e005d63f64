// `dcpi run --output GUEST:HOST` (issue 29): the files the host asked for
// (command line output=PATH,PATH...) are sent on the host channel (COM3,
// never the console) when init exits, before DCPI-DONE, as
//
//   dcpi-output-begin SIZE PATH
//   dcpi-output-data HEX...        (48 bytes a line)
//   dcpi-output-end
//
// or `dcpi-output-missing PATH` for a file the guest does not have. The
// host decodes them (hostdump/run/guest_outputs.h).
#pragma once
#include <cstdint>

namespace kernel::host_output {

// The paths, comma-separated (a command-line value; copied).
void set_paths(const char* paths, uint64_t length);
// Sends every asked file (nothing without output=).
void send();

}  // namespace kernel::host_output
