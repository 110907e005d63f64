// Writes the plugin's calling-context file (firmware/contexts_format.h):
// raw guest PCs, no image table; `dcpi run --contexts` attributes it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "qemu/machine/plugins/contexts/thread_contexts.h"
#include "qemu/machine/plugins/contexts/thread_paths.h"

namespace dcpi::contexts {

struct ThreadEntry {
  uint32_t pid = 0;
  uint32_t cpu = DCPI_CONTEXTS_NO_CPU;
  uint64_t pcb = 0;
  const ThreadContexts* tree = nullptr;
  const ThreadPaths* paths = nullptr;  // for the path file (paths_file_writer.h)
};

// The file's bytes, trailer included.
std::vector<uint8_t> encode_contexts(uint16_t machine, const std::vector<ThreadEntry>& threads);
// PATH.tmp, renamed to PATH when complete; false on any error.
bool write_contexts_file(const std::string& path, uint16_t machine,
                         const std::vector<ThreadEntry>& threads);

}  // namespace dcpi::contexts
