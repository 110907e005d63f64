// Writes the plugin's path-profile file (firmware/paths_format.h): raw
// guest PCs, no image table; `dcpi run --paths` attributes it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "qemu/machine/plugins/contexts/contexts_file_writer.h"

namespace dcpi::contexts {

// The file's bytes, trailer included: every thread's finished paths.
std::vector<uint8_t> encode_paths(uint16_t machine, const std::vector<ThreadEntry>& threads);
// PATH.tmp, renamed to PATH when complete; false on any error.
bool write_paths_file(const std::string& path, uint16_t machine,
                      const std::vector<ThreadEntry>& threads);

}  // namespace dcpi::contexts
