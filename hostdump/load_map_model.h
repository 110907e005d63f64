// Attribution (DCPI §4.3.1-4.3.2): which image a (PID, PC) falls in, from the
// kernel's image-load notifications (firmware/load_map.h, kLoadMap records).
//
// Rules (docs/profile-db.md, "Attribution"):
//  - kKernel and kPalcode images are valid for every PID (kernel text is
//    shared by all processes); a PID's own images are tried first.
//  - kExec starts a PID's images afresh with the program (spawn, a reused
//    PID, execve: an exec discards the whole old address space; samples of
//    the old program flushed after the record are placed in the new one).
//  - kFork gives the new PID a copy of its parent's images (fork, vfork).
//  - kMap (an executable file mapping: ld.so, a shared library) adds an
//    image to its PID the same way, without starting a new process.
//  - kExit only marks the PID as exited. Its mappings are KEPT, because the
//    driver flushes its hash tables lazily (DCPI §4.2.3): samples of a
//    process can arrive after its exit record.
//  - Samples carry the thread id (issue 29): kThread records say which
//    process a thread belongs to, and its samples are placed in that
//    process's images. The records of the process table (kThread,
//    kThreadName, kThreadExit, kCommand, and the times, parents and exit
//    statuses of kFork/kExec/kExit) fill `processes()`.
//  - Whatever cannot be placed goes to the unknown profile, counted.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "firmware/load_map.h"
#include "profiledb/process_table.h"
#include "profiledb/profile_db.h"

namespace dcpi {

struct Placement {
  uint32_t image_id = 0;  // index into LoadMapModel::images()
  uint64_t address = 0;   // ELF virtual address: pc - load_address + link_address
};

class LoadMapModel {
 public:
  // Applies one record; a malformed one (bad kind, empty or wrapping range,
  // unterminated path, oversized build-id) is counted and ignored: false.
  bool apply(const LoadMapRecord& record);

  // `tid`: the sample's thread (its process's id for the first thread, and
  // in recordings made before issue 29).
  std::optional<Placement> place(uint32_t tid, uint64_t pc) const;
  // Every process and thread the records named so far (the database's
  // epoch-N/processes).
  const ProcessTable& processes() const { return table_; }

  const std::vector<ImageIdentity>& images() const { return images_; }

  // The address spaces each PID had, in the ev5 truth's numbering
  // (firmware/truth_format.h): from 0, one per kFork and kExec record of
  // the PID, with the images mapped in it by the end.
  struct SpaceImage {
    uint32_t pid = 0, generation = 0;
    uint64_t load_address = 0, size = 0, link_address = 0;
    uint32_t image_id = 0;
  };
  std::vector<SpaceImage> space_images() const;
  uint64_t rejected_records() const { return rejected_records_; }
  uint64_t applied_records() const { return applied_records_; }
  bool has_exited(uint32_t pid) const;

 private:
  struct Mapping {
    uint64_t load_address = 0;
    uint64_t end = 0;  // exclusive
    uint64_t link_address = 0;
    uint32_t image_id = 0;
  };
  struct Process {
    std::vector<Mapping> mappings;  // sorted by load_address, disjoint
    bool exited = false;
    uint32_t spaces = 0;  // kFork and kExec records so far
  };
  // A new address space for `pid`, with `mappings`.
  Process& begin_space(uint32_t pid, std::vector<Mapping> mappings);
  void remember_space(uint32_t pid);

  uint32_t intern_image(const LoadMapRecord& record);
  bool apply_table_record(const LoadMapRecord& record);
  bool apply_counts_record(const LoadMapRecord& record);  // kCounts (CountsRecord)
  void note_program(const LoadMapRecord& record);
  static void insert_mapping(std::vector<Mapping>& mappings, const Mapping& mapping);
  static const Mapping* find(const std::vector<Mapping>& mappings, uint64_t pc);

  std::vector<ImageIdentity> images_;
  std::map<std::pair<std::string, std::string>, uint32_t> image_ids_;  // (build-id, path)
  std::vector<Mapping> global_;                                        // kernel and PALcode
  std::unordered_map<uint32_t, Process> processes_;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Mapping>> spaces_;  // (pid, generation)
  ProcessTable table_;
  uint64_t rejected_records_ = 0;
  uint64_t applied_records_ = 0;
};

// Lower-case hex of the build-id bytes of a record.
std::string build_id_hex(const LoadMapRecord& record);

}  // namespace dcpi
