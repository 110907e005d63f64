// One step of a DWARF CFI unwind (issue 28 item 2; DWARF 5 §6.4): given the
// registers of a frame and a way to read the stack, the registers of its
// caller, from an image's .eh_frame (read with libelf). What `perf
// --call-graph dwarf` does with elfutils' unwinder; elfutils' CFI lookup
// fails on Alpha (no ABI CFI in its backend), so the interpreter is ours
// (cfi_unwinder.cpp), with the loop around it in hostdump/run/chain_unwind.h
// telling apart every way a chain can end. .debug_frame is not read: every
// image we run (workloads, Debian's libraries, ld.so) has .eh_frame.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dcpi {

// Alpha's DWARF register numbers are the integer registers 0-31.
inline constexpr int kAlphaDwarfRa = 26;
inline constexpr int kAlphaDwarfFp = 15;
inline constexpr int kAlphaDwarfT9 = 23;  // the division millicode returns through it
inline constexpr int kAlphaDwarfSp = 30;

struct UnwindRegisters {
  std::array<uint64_t, 32> value{};
  uint32_t known = 0;  // bit n: value[n] is known
  bool has(int n) const { return (known >> n) & 1u; }
  void set(int n, uint64_t v) { value[n] = v, known |= 1u << n; }
  void forget(int n) { known &= ~(1u << n); }
};

// Why a step produced no caller.
enum class UnwindStop {
  kOutermost,   // the CFI says the return address is undefined: the chain is complete
  kNoCfi,       // no CFI row covers the PC (no unwind tables, or code without CFI)
  kNoRegister,  // the CFA or return address needs a register nobody captured
  kNoMemory,    // a saved register lies outside the copied stack slice
  kBadCfi,      // an expression this evaluator does not handle
};

struct UnwindStep {
  std::optional<UnwindRegisters> caller;  // the caller's registers, pc in `return_address`
  uint64_t return_address = 0;
  // The frame was a trap's (a signal frame, 'S' augmentation: the kernel's
  // entry stubs): `return_address` is the interrupted PC, where the caller
  // resumes, not the instruction after a call.
  bool resumes = false;
  UnwindStop stop = UnwindStop::kOutermost;  // when !caller
};

// Reads a quadword of the unwound thread's stack; false when not available.
using StackReader = std::function<bool(uint64_t address, uint64_t* value)>;

// The CFI of one ELF file (.eh_frame). Addresses are
// the file's own (ELF virtual addresses); register values are run-time
// ones, and `load_bias` (run-time minus ELF address) converts a return
// address the caller hands back.
class CfiTable {
 public:
  // nullptr (with `problem` set) when the file cannot be read or has no CFI.
  static std::unique_ptr<CfiTable> open(const std::string& path, std::string* problem);
  ~CfiTable();
  CfiTable(const CfiTable&) = delete;
  CfiTable& operator=(const CfiTable&) = delete;

  // `elf_pc`: the frame's PC in this file. For a caller frame pass the call
  // instruction's address (return address - 4), so that a call that ends
  // a procedure is looked up in that procedure.
  UnwindStep step(uint64_t elf_pc, const UnwindRegisters& registers, const StackReader& read) const;
  // The FDE covering `elf_pc`: [begin, end) of the procedure it describes,
  // for code without symbols (stripped libraries); nullopt when none covers it.
  std::optional<std::pair<uint64_t, uint64_t>> function_range(uint64_t elf_pc) const;
  // Every FDE's [begin, end), by begin.
  std::vector<std::pair<uint64_t, uint64_t>> function_ranges() const;

 private:
  struct Handles;
  explicit CfiTable(std::unique_ptr<Handles> handles);
  std::unique_ptr<Handles> handles_;
};

const char* unwind_stop_name(UnwindStop stop);

// CfiTable::function_range for the ELF file at `path`, its table opened once
// per process and kept (ElfImage::procedure_at names unsymbolized code by
// it). Safe to call from several threads.
std::optional<std::pair<uint64_t, uint64_t>> cfi_function_range(const std::string& path,
                                                                uint64_t elf_pc);
// CfiTable::function_ranges of the same kept table (empty without CFI).
std::vector<std::pair<uint64_t, uint64_t>> cfi_function_ranges(const std::string& path);

}  // namespace dcpi
