// Exact execution counts and, on a timed machine, exact cycles (the role
// dcpix played in DCPI §6.2, and what DCPI never had for stalls): the file a
// QEMU plugin writes (qemu/machine/plugins/), format in docs/exec-counts-format.md.
//
// Version 1 (exec_counts, machine qemu): per PC executions and non-sequential
// edges. An edge is recorded whenever the next executed PC is not the
// current PC + 4, so the sequential flow out of an instruction is implicit:
// executions(pc) − Σ recorded edges out of pc. Every instruction takes one
// cycle, so cycles = executions and nothing stalls.
//
// Version 2 (ev5 plugin, issue 14) adds per PC the cycles it spent at the
// head of the issue queue, the stall cycles among them by cause with the
// culprit PC when the model knows it, and whole-run event counts.
//
// Version 6 (ev5, issue 26) adds each counter event's count per PC
// (`pcevent`): what the 21164's counters 1 and 2 count, where the model
// books it.
//
// Version 5 (ev5) keeps user-mode PCs per address space (a process and its
// generation: every program is linked at the same addresses) with the
// images each space had; the per-PC maps of the whole file still sum every
// space by PC, as before, and for_image() gives one image's own truth.
#pragma once
#include <compare>
#include <cstdint>
#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "isa/stall_causes.h"

namespace dcpi::calc {

using isa::StallCause;

// The cause of a version-2 `stall` line, by its word (isa::truth_name):
// only the causes the truth books (isa::booked_as), none for an unknown
// word.
std::optional<StallCause> parse_truth_cause(std::string_view word);

struct TruthStall {
  StallCause cause = StallCause::kOther;  // as booked: slot, dep, a §6.3 cause or other
  uint64_t cycles = 0;                    // summed over the instruction's executions
  std::optional<uint64_t> culprit;        // producer, missing load, mispredicted branch
};

class GroundTruth {
 public:
  void add_instruction(uint64_t pc, uint64_t count) { instructions_[pc] += count; }
  void add_edge(uint64_t from, uint64_t to, uint64_t count);
  void add_cycles(uint64_t pc, uint64_t cycles) { cycles_[pc] += cycles; }
  void add_stall(uint64_t pc, const TruthStall& stall);
  void add_event(const std::string& name, uint64_t count) { events_[name] += count; }
  void add_visible(uint64_t pc, uint64_t cycles) { visible_[pc] += cycles; }
  void add_pc_event(const std::string& name, uint64_t pc, uint64_t count) {
    pc_events_[name][pc] += count;
  }

  // Adds another run's truth of the same machine and version (a profile
  // accumulated over runs: DCPI §6.2 ran each program three times): every
  // count summed, spaces by (PID, generation), images and maps once each.
  // Throws std::invalid_argument when the machines or versions differ.
  void add(const GroundTruth& other);

  uint64_t executions(uint64_t pc) const;
  // Executions of the transfer from → to; to == from + 4 includes the
  // implicit sequential flow.
  uint64_t transfers(uint64_t from, uint64_t to) const;
  const std::unordered_map<uint64_t, uint64_t>& instructions() const { return instructions_; }
  const std::map<std::pair<uint64_t, uint64_t>, uint64_t>& edges() const { return edges_; }

  // Cycles at the head of the issue queue: the file's `cycles` on a timed
  // machine, the executions on qemu (one cycle each).
  uint64_t cycles(uint64_t pc) const;
  // Version 4 (a sampling run on a timed machine): whether the file says
  // which cycles a sample could land on, and how many at pc — its cycles
  // outside the sample window after each reload, PAL's at the PC PAL
  // returned to (firmware/truth_format.h). Without them, cycles(pc).
  bool knows_visibility() const;
  uint64_t visible_cycles(uint64_t pc) const;
  // The stalls at pc (empty on qemu), one entry per (cause, culprit).
  const std::vector<TruthStall>& stalls(uint64_t pc) const;
  const std::unordered_map<uint64_t, std::vector<TruthStall>>& all_stalls() const {
    return stalls_;
  }
  const std::map<std::string, uint64_t>& events() const { return events_; }
  // Version 6: each counter event's count per PC, by its firmware/events.h
  // name (imiss, dmiss, ...); empty in older files.
  using PcCounts = std::unordered_map<uint64_t, uint64_t>;
  const std::map<std::string, PcCounts>& pc_events() const { return pc_events_; }
  // Every PC with `cycles` or `visible` lines: f(pc, cycles, visible).
  template <typename F>
  void for_each_cycles(F f) const {
    for (const auto& [pc, c] : cycles_) {
      const auto v = visible_.find(pc);
      f(pc, c, v == visible_.end() ? 0 : v->second);
    }
    for (const auto& [pc, v] : visible_)
      if (!cycles_.contains(pc)) f(pc, 0, v);
  }

  int version = 1;
  // Version 3: the images the run booted (build-id, guest path; build-id
  // "-" when an image has none). The truth counts guest addresses, which
  // every program shares: the reader checks the image it scores is one.
  struct Image {
    std::string build_id;
    std::string path;
  };
  std::vector<Image> images;
  std::string machine = "qemu";  // version 1 files: qemu

  // Version 5: an address space, `space PID GENERATION`, and an image it
  // had, `map ...` (firmware/truth_format.h).
  struct SpaceId {
    uint32_t pid = 0, generation = 0;
    auto operator<=>(const SpaceId&) const = default;
  };
  struct Mapping {
    SpaceId space;
    uint64_t load = 0, size = 0, link = 0;
    std::string build_id, path;  // build_id "-": none
  };
  // Each space's own lines (PCs as the guest ran them).
  std::map<SpaceId, std::shared_ptr<GroundTruth>> spaces;
  std::vector<Mapping> maps;
  bool has_spaces() const { return !spaces.empty(); }
  // Whether a `map` line names the image (by build-id, by path without one).
  bool maps_image(const std::string& build_id, const std::string& path) const;
  // The truth of one image: every space's lines inside the image's
  // mappings, at the image's ELF addresses (pc - load + link), summed. A
  // transfer or a culprit outside the mapping is kept only when it is no
  // user address (the kernel's, PAL's), else a transfer goes to
  // kOutsideImage and a culprit is dropped. Whole-run records (machine,
  // events, images) are copied. Without spaces, the whole file as it is;
  // for an image no `map` line names (the kernel, PALcode), the lines of
  // the shared addresses (KSEG) only.
  GroundTruth for_image(const std::string& build_id, const std::string& path) const;
  static constexpr uint64_t kOutsideImage = ~uint64_t{0};
  uint64_t vcpus = 0;  // 0: not given
  // True for a timed machine's file: cycles and stalls are the model's.
  bool timed() const { return version >= 2 && machine != "qemu"; }

 private:
  std::unordered_map<uint64_t, uint64_t> instructions_;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> edges_;
  std::unordered_map<uint64_t, uint64_t> recorded_out_;  // Σ recorded edges per source PC
  std::unordered_map<uint64_t, uint64_t> cycles_, visible_;
  std::unordered_map<uint64_t, std::vector<TruthStall>> stalls_;
  std::map<std::string, uint64_t> events_;
  std::map<std::string, PcCounts> pc_events_;
};

// Parses a truth file of any version up to DCPI_TRUTH_VERSION_NEWEST
// (firmware/truth_format.h); on a malformed line, a newer version or a
// record kind its version does not have, returns false with a one-line error
// ("line N: ..."). read_ground_truth_file opens PATH and names it in the
// error ("PATH: line N: ...").
bool read_ground_truth(std::istream& in, GroundTruth& truth, std::string& error);
bool read_ground_truth_file(const std::string& path, GroundTruth& truth, std::string& error);

}  // namespace dcpi::calc
