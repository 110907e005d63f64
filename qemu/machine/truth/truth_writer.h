// The one writer of the truth file (firmware/truth_format.h,
// docs/exec-counts-format.md), for both plugins: exec_counts writes version
// 1, the EV5 model version 2. The caller hands the records in the format's
// order, each kind sorted; the writer spells them. It writes PATH.tmp and
// renames it to PATH on close, so a reader never sees half a file (QEMU may
// be killed while the plugin writes).
#pragma once
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "isa/stall_causes.h"

namespace dcpi::truth {

class TruthWriter {
 public:
  TruthWriter() = default;
  TruthWriter(const TruthWriter&) = delete;
  TruthWriter& operator=(const TruthWriter&) = delete;
  ~TruthWriter();

  // Opens PATH.tmp and writes the header line; false (errno set) on failure.
  // With `images` (a file of "BUILD_ID PATH" lines, the plugin's images=)
  // that exists, the file is at least version DCPI_TRUTH_VERSION_IMAGES and
  // names them.
  bool open(const std::string& path, int version, const std::string& images = {});
  // fclose, then rename PATH.tmp to PATH; false (errno set) on failure.
  bool close();

  void comment(const char* text);  // the whole line, from its '#'
  void machine(const char* name);
  void vcpus(size_t count);
  void insn(uint64_t pc, uint64_t count);
  void edge(uint64_t from, uint64_t to, uint64_t count);
  void cycles(uint64_t pc, uint64_t cycles);
  // CAUSE is written as the truth books it (isa::booked_as).
  void stall(uint64_t pc, isa::StallCause cause, uint64_t cycles, std::optional<uint64_t> culprit);
  void event(const char* name, uint64_t count);
  void visible(uint64_t pc, uint64_t cycles);
  // Version 6: event NAME happened COUNT times at PC.
  void pc_event(uint64_t pc, const char* name, uint64_t count);
  // Version 5: the per-PC lines that follow are user PCs of this space.
  void space(uint32_t pid, uint32_t generation);

 private:
  std::string path_;
  FILE* out_ = nullptr;
};

}  // namespace dcpi::truth
