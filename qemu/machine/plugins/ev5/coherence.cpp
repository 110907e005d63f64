#include "qemu/machine/plugins/ev5/coherence.h"

#include "qemu/machine/plugins/ev5/memory_system.h"

namespace dcpi::ev5 {

Coherence::Coherence() : table_(size_t{1} << kTableBits) {}

void Coherence::attach(size_t cpu, MemorySystem* memory) {
  if (cpus_.size() <= cpu) cpus_.resize(cpu + 1, nullptr);
  cpus_[cpu] = memory;
}

void Coherence::store(size_t cpu, uint64_t address) {
  const uint64_t line = address >> kLineShift;
  Writer& w = writer_of(line);
  // Its own line, which nobody read since it wrote it: no other copy exists.
  if (w.line == line && w.cpu == static_cast<int16_t>(cpu) && !w.read_since) return;
  for (size_t other = 0; other < cpus_.size(); ++other)
    if (other != cpu && cpus_[other]) cpus_[other]->invalidate(line << kLineShift);
  w = Writer{.line = line, .cpu = static_cast<int16_t>(cpu), .read_since = false};
}

bool Coherence::fill(size_t cpu, uint64_t address) {
  const uint64_t line = address >> kLineShift;
  Writer& w = writer_of(line);
  if (w.line != line || w.cpu == static_cast<int16_t>(cpu) || w.read_since) return false;
  w.read_since = true;
  return true;
}

}  // namespace dcpi::ev5
