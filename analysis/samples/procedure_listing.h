// The annotated listing of one procedure (DCPI §3.2: assembly with the
// samples of every instruction, source lines interleaved when the image has
// line information). On QEMU every instruction costs one cycle (DESIGN §3),
// so samples per instruction estimate execution counts directly; no stall
// columns are shown because the emulated machine has no stalls.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/samples/sample_set.h"
#include "symbols/elf_image.h"
#include "symbols/image_resolver.h"
#include "symbols/instruction_printer.h"
#include "symbols/procedure_match.h"

namespace dcpi {

struct ListedInstruction {
  uint64_t address = 0;
  std::optional<uint32_t> word;  // nullopt if the bytes are not in the file (e.g. .bss)
  std::string text;
  std::vector<uint64_t> samples;  // per event
  std::optional<SourceLocation> source;
};

struct ProcedureListing {
  std::string image;       // display name
  std::string image_path;  // guest path
  Procedure procedure;
  uint64_t end = 0;                 // exclusive
  std::vector<std::string> events;  // event columns
  std::vector<uint64_t> totals;     // samples inside the procedure, per event
  std::vector<ListedInstruction> instructions;
  uint64_t samples_outside = 0;  // first event: samples at addresses that are not instructions
  // order_by_samples: hottest first, instructions without samples left out.
  bool by_samples = false;
  size_t unsampled_left_out = 0;
};

// `dcpi list --sort samples` (perf annotate's hottest lines first): the
// instructions with samples of the first event, most first (address order
// among equals); those without are left out and counted.
void order_by_samples(ProcedureListing& listing);

// Listings of every procedure called `name` in the images of `samples`
// (filtered by the caller); an image resolved without an ELF is skipped with
// its warning added to `warnings`. Instructions are printed with `printer`,
// or, when it is null, with isa/'s printer for each image. Throws
// std::runtime_error if no image has such a procedure.
std::vector<ProcedureListing> list_procedure(const SampleSet& samples, ImageResolver& resolver,
                                             const std::string& name,
                                             const InstructionPrinter* printer,
                                             std::vector<std::string>& warnings);

// Adds to `sampled` the procedures of `elf` with samples of `image`, so a
// name that matches nothing is answered with the procedures that ran first.
void add_sampled_procedures(const SampleSet& samples, const ImageIdentity& image,
                            const ElfImage& elf, SampledProcedures& sampled);

// Listing of one known procedure of one image.
ProcedureListing list_procedure_in_image(const SampleSet& samples, const ImageIdentity& image,
                                         const ElfImage& elf, const Procedure& procedure,
                                         const InstructionPrinter& printer);

}  // namespace dcpi
