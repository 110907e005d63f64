#include "hostdump/run/chain_unwind.h"

#include <stdexcept>

namespace dcpi {

using profiledb::ChainStop;

ChainUnwinder::ChainUnwinder(std::vector<RecordedImage> images, uint32_t stack_bytes,
                             uint16_t machine)
    : resolver_(ImageResolver::from_sources(ImageSources{{}, std::move(images), true})),
      stack_bytes_(stack_bytes),
      machine_(machine) {}

void ChainUnwinder::add_dropped(uint64_t, uint64_t samples) { dropped_ += samples; }

const CfiTable* ChainUnwinder::table_for(uint32_t image_id, const LoadMapModel& load_map,
                                         ChainStop* why) {
  auto found = tables_.find(image_id);
  if (found == tables_.end()) {
    const ResolvedImage& resolved = resolver_.resolve(load_map.images()[image_id]);
    std::unique_ptr<CfiTable> table;
    std::string problem;
    if (resolved.elf == nullptr)
      table_problem_[image_id] = ChainStop::kNoElf;
    else if (!(table = CfiTable::open(resolved.elf->path(), &problem)))
      table_problem_[image_id] = ChainStop::kNoCfi;
    found = tables_.emplace(image_id, std::move(table)).first;
  }
  if (found->second == nullptr) *why = table_problem_[image_id];
  return found->second.get();
}

namespace {

// `flags`: the slice's the unwinder was reading (the head's, or the user part's).
ChainStop stop_of(UnwindStop stop, uint8_t flags) {
  switch (stop) {
    case UnwindStop::kOutermost:
      return ChainStop::kComplete;
    case UnwindStop::kNoCfi:
      return ChainStop::kNoCfi;
    case UnwindStop::kNoRegister:
      return ChainStop::kNoRegister;
    case UnwindStop::kNoMemory:
      return (flags & kChainStackEnd) ? ChainStop::kStackEnded : ChainStop::kSliceTooShort;
    case UnwindStop::kBadCfi:
      return ChainStop::kBadCfi;
  }
  return ChainStop::kBadCfi;
}

}  // namespace

// The code at an image's ELF entry point up to its first call (ld.so's
// _start: set gp, pass sp, call _dl_start) has no CFI and no caller: it is
// where the process began, the exact tree's root (code before the thread's
// first call), so a chain that reaches it is complete, not truncated.
bool ChainUnwinder::in_entry_code(uint32_t image_id, uint64_t address,
                                  const LoadMapModel& load_map) {
  constexpr uint64_t kEntryCodeBytes = 64;  // ld.so's first call is its 5th instruction
  const ResolvedImage& resolved = resolver_.resolve(load_map.images()[image_id]);
  if (resolved.elf == nullptr) return false;
  const uint64_t entry = resolved.elf->load_info().entry;
  return entry != 0 && address >= entry && address - entry < kEntryCodeBytes;
}

namespace {
// Kernel addresses are KSEG's and the kernel's own: the top of the address
// space (firmware/memory_map.h); user addresses are below 2^63.
bool is_user_address(uint64_t address) { return (address >> 63) == 0; }
}  // namespace

// Leaf first. The leaf's address is the sampled PC; a caller's is its call
// instruction (return address - 4: every Alpha instruction is 4 bytes and
// bsr/jsr leave the next one in ra), which is also where its CFI row is.
// A trap's frame (the kernel's entry stubs, CFI signal frames) hands back the
// PC the interrupted code resumes at instead, which is kept as it is.
//
// A kernel-mode sample (format 3) is unwound with the kernel's .eh_frame
// over its kernel slice, through nested trap frames, down to the TrapFrame
// of the thread's entry from user mode; its saved PC is a user address, and
// the chain goes on in user mode from the sample's ChainUserPart (the user
// sp, which the TrapFrame does not hold, and the user slice), so one chain
// reads kernel leaf ... kernel entry ... user caller ... main.
ChainStop ChainUnwinder::unwind(const ChainSample& sample, const LoadMapModel& load_map,
                                std::vector<Frame>& frames) {
  UnwindRegisters regs;
  regs.set(kAlphaDwarfSp, sample.sp);
  regs.set(kAlphaDwarfRa, sample.ra);
  regs.set(kAlphaDwarfFp, sample.fp);
  regs.set(kAlphaDwarfT9, sample.t9);
  regs.set(31, 0);  // Alpha's zero register: .frame $30,N,$31 (an entry's "no return address")
  const StackReader read = [&sample](uint64_t address, uint64_t* value) {
    return sample.read(address, value);
  };
  uint8_t slice_flags = sample.flags;  // the slice being read: the head's, then the user part's
  uint64_t pc = sample.pc;
  bool resumes = true;  // the leaf: where it was interrupted
  for (bool leaf = true;; leaf = false) {
    const uint64_t where = resumes ? pc : pc - 4;
    const std::optional<Placement> placed = load_map.place(sample.pid, where);
    if (!placed) {
      frames.push_back({profiledb::kChainNoImage, where});
      return ChainStop::kNoImage;
    }
    frames.push_back({placed->image_id, placed->address});
    if (!sample.user() && sample.format < 3) return ChainStop::kKernel;
    if (frames.size() >= profiledb::kMaxChainDepth) return ChainStop::kDepthLimit;
    ChainStop why = ChainStop::kNoCfi;
    const CfiTable* table = table_for(placed->image_id, load_map, &why);
    if (table == nullptr) return why;
    const UnwindStep step = table->step(placed->address, regs, read);
    if (!step.caller && step.stop == UnwindStop::kNoCfi && !leaf &&
        in_entry_code(placed->image_id, placed->address, load_map))
      return ChainStop::kComplete;
    if (!step.caller) return stop_of(step.stop, slice_flags);
    if (step.return_address == 0) return ChainStop::kComplete;
    UnwindRegisters caller = *step.caller;
    if (!is_user_address(pc) && is_user_address(step.return_address)) {
      // Out of the kernel through the TrapFrame of an entry from user mode.
      if (!sample.has_user_part()) return ChainStop::kNoRegister;  // no user sp
      caller.set(kAlphaDwarfSp, sample.user_sp);
      slice_flags = sample.user_flags;
    } else {
      const uint64_t caller_sp = caller.value[kAlphaDwarfSp];
      if (caller_sp < regs.value[kAlphaDwarfSp] ||
          (caller_sp == regs.value[kAlphaDwarfSp] && step.return_address == pc))
        return ChainStop::kNoProgress;
    }
    regs = caller;
    pc = step.return_address;
    resumes = step.resumes;
  }
}

uint32_t ChainUnwinder::node(uint32_t parent, uint32_t image, uint64_t address) {
  const auto key = std::tuple{parent, image, address};
  if (const auto found = index_.find(key); found != index_.end()) return found->second;
  const auto index = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back({parent, profiledb::kChainFrame, 0, image, 0, address, 0});
  index_.emplace(key, index);
  return index;
}

void ChainUnwinder::add(const ChainSample& sample, const LoadMapModel& load_map) {
  std::vector<Frame> frames;
  const ChainStop stop = unwind(sample, load_map, frames);
  auto root = roots_.find(static_cast<uint16_t>(stop));
  if (root == roots_.end()) {
    const auto index = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back({profiledb::kChainNoParent, profiledb::kChainRoot, static_cast<uint16_t>(stop),
                      profiledb::kChainNoImage, 0, 0, 0});
    root = roots_.emplace(static_cast<uint16_t>(stop), index).first;
  }
  uint32_t at = root->second;
  for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame)
    at = node(at, frame->image, frame->address);
  ++nodes_[at].samples;
}

profiledb::ChainProfile ChainUnwinder::profile(const LoadMapModel& load_map) const {
  profiledb::ChainProfile out;
  out.machine = machine_;
  out.dropped = dropped_;
  out.stack_bytes = stack_bytes_;
  for (const ImageIdentity& image : load_map.images())
    out.images.push_back({image.build_id, image.path});
  out.nodes = nodes_;
  return out;
}

void store_run_chains(const ChainUnwinder& unwinder, const ProfileBuilder& builder,
                      ProfileDatabaseWriter& writer, RunResult& result) {
  const auto& epochs = builder.written_epochs();
  if (epochs.empty()) throw std::runtime_error("-g: the run stored no epoch to keep the chains in");
  const uint64_t epoch = *epochs.rbegin();
  const profiledb::ChainProfile profile = unwinder.profile(builder.load_map());
  writer.store_chains(epoch, profiledb::encode_chains(profile));
  result.chain_samples = profile.samples();
  result.chain_nodes = profile.nodes.size();
  result.chains_epoch = epoch;
}

}  // namespace dcpi
