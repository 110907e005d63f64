#include "analysis/samples/procedure_listing.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "symbols/procedure_match.h"

namespace dcpi {
namespace {

// A cap on the listing length: an unsized symbol at the end of a huge section
// must not turn into a million-line listing.
constexpr uint64_t kMaxListedBytes = 1 << 20;

std::map<uint16_t, std::string> events_of(const SampleSet& samples) {
  std::map<uint16_t, std::string> events;
  for (const Profile& profile : samples.profiles)
    events.emplace(profile.info.event, profile.info.event_name);
  if (events.empty()) events.emplace(0, "cycles");  // an empty listing still has a column
  return events;
}

}  // namespace

void add_sampled_procedures(const SampleSet& samples, const ImageIdentity& image,
                            const ElfImage& elf, SampledProcedures& sampled) {
  std::set<uint64_t> addresses;
  for (const Profile& profile : samples.profiles)
    if (profile.info.image == image)
      for (const ProfileRow& row : profile.rows) addresses.insert(row.address);
  uint64_t covered_until = 0;  // the last procedure found covers the addresses before this
  for (const uint64_t address : addresses) {
    if (address < covered_until) continue;
    const std::optional<Procedure> procedure = elf.procedure_at(address);
    if (!procedure) continue;
    sampled.insert(procedure->name);
    covered_until = procedure->size ? procedure->start + procedure->size : 0;
  }
}

ProcedureListing list_procedure_in_image(const SampleSet& samples, const ImageIdentity& image,
                                         const ElfImage& elf, const Procedure& procedure,
                                         const InstructionPrinter& printer) {
  ProcedureListing listing;
  listing.image = image_display_name(image);
  listing.image_path = image.path;
  listing.procedure = procedure;
  listing.end = std::max(elf.procedure_end(procedure), procedure.start);
  listing.end = std::min(listing.end, procedure.start + kMaxListedBytes);
  std::map<uint16_t, size_t> column_of;
  for (const auto& [number, name] : events_of(samples)) {
    column_of[number] = listing.events.size();
    listing.events.push_back(name);
  }
  listing.totals.assign(listing.events.size(), 0);

  const uint64_t first = procedure.start & ~uint64_t{3};  // Alpha instructions are 4-byte aligned
  for (uint64_t address = first; address < listing.end; address += 4) {
    ListedInstruction instruction;
    instruction.address = address;
    instruction.word = elf.instruction_at(address);
    instruction.text = instruction.word ? printer.format(*instruction.word, address) : "??";
    instruction.samples.assign(listing.events.size(), 0);
    instruction.source = elf.source_at(address);
    listing.instructions.push_back(std::move(instruction));
  }
  for (const Profile& profile : samples.profiles) {
    if (profile.info.image != image) continue;
    const size_t column = column_of.at(profile.info.event);
    for (const ProfileRow& row : profile.rows) {
      if (row.address < first || row.address >= listing.end) continue;
      listing.totals[column] += row.count;
      if (row.address % 4 != 0) {  // a PC the hardware could not have had
        if (column == 0) listing.samples_outside += row.count;
        continue;
      }
      listing.instructions[(row.address - first) / 4].samples[column] += row.count;
    }
  }
  return listing;
}

void order_by_samples(ProcedureListing& listing) {
  std::vector<ListedInstruction>& instructions = listing.instructions;
  const auto unsampled = std::stable_partition(
      instructions.begin(), instructions.end(),
      [](const ListedInstruction& i) { return !i.samples.empty() && i.samples[0] > 0; });
  listing.unsampled_left_out = static_cast<size_t>(instructions.end() - unsampled);
  instructions.erase(unsampled, instructions.end());
  std::stable_sort(instructions.begin(), instructions.end(),
                   [](const ListedInstruction& a, const ListedInstruction& b) {
                     return a.samples[0] > b.samples[0];
                   });
  listing.by_samples = true;
}

std::vector<ProcedureListing> list_procedure(const SampleSet& samples, ImageResolver& resolver,
                                             const std::string& name,
                                             const InstructionPrinter* printer,
                                             std::vector<std::string>& warnings) {
  std::vector<ProcedureListing> listings;
  std::set<ImageIdentity> images;
  for (const Profile& profile : samples.profiles)
    if (!profile.info.image.unknown) images.insert(profile.info.image);
  std::vector<std::string> every_symbol;  // for the candidates when nothing matches
  size_t with_symbols = 0;
  for (const ImageIdentity& image : images) {
    const ResolvedImage& resolved = resolver.resolve(image);
    if (!resolved.elf) {
      if (!resolved.warning.empty()) warnings.push_back(resolved.warning);
      continue;
    }
    ++with_symbols;
    const std::vector<std::string> symbols = resolved.elf->procedure_symbols();
    every_symbol.insert(every_symbol.end(), symbols.begin(), symbols.end());
    const std::optional<Procedure> procedure = find_procedure(*resolved.elf, name, image.path);
    if (!procedure) continue;
    const auto image_printer = make_instruction_printer(image.path, &resolved.elf->symbols());
    listings.push_back(list_procedure_in_image(samples, image, *resolved.elf, *procedure,
                                               printer ? *printer : *image_printer));
  }
  if (listings.empty() && images.empty())
    throw std::runtime_error("no procedure named '" + name +
                             "' in any sampled image (no samples match)");
  if (listings.empty()) {
    SampledProcedures sampled;  // ranked first among the candidates
    for (const ImageIdentity& image : images)
      if (const ResolvedImage& resolved = resolver.resolve(image); resolved.elf)
        add_sampled_procedures(samples, image, *resolved.elf, sampled);
    throw no_procedure_error(every_symbol, name, with_symbols,
                             warnings.empty() ? "" : warnings.front(), &sampled);
  }
  return listings;
}

}  // namespace dcpi
