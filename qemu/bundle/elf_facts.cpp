#include "qemu/bundle/elf_facts.h"

#include <cstring>

#include "symbols/elf_image.h"

namespace dcpi::qemu {
namespace {

// The bytes the bundler looks at besides the headers: section contents
// (the GOT), no line tables, no procedure index.
constexpr ElfReadOptions kSectionsOnly{
    .section_contents = true, .line_tables = false, .procedures = false};

bool holds_word(const std::vector<uint8_t>& bytes, uint64_t value) {
  for (size_t at = 0; at + 8 <= bytes.size(); at += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + at, 8);
    if (word == value) return true;
  }
  return false;
}

// glibc's static start-up finds its program headers through __ehdr_start,
// which a correct link leaves in the GOT as the header's address; a relaxed
// link folds the load into a constant 0 and leaves no such word.
bool static_glibc_without_ehdr(const ElfImage& image) {
  const ElfLoadInfo& load = image.load_info();
  if (!load.interpreter.empty() || !load.has_tls) return false;
  const std::vector<ElfSection>* sections = nullptr;
  try {
    sections = &image.sections();
  } catch (const ElfError&) {  // no section names: nothing says it is glibc
    return false;
  }
  bool glibc = false;
  const ElfSection* got = nullptr;
  for (const ElfSection& section : *sections) {
    if (section.name == "__libc_freeres_fn") glibc = true;
    if (section.name == ".got") got = &section;
  }
  return glibc && got && !holds_word(got->bytes, load.header_address.value_or(~uint64_t{0}));
}

}  // namespace

ElfFacts read_elf_facts(const std::filesystem::path& file) {
  const ElfImage image = ElfImage::open(file.string(), kSectionsOnly);
  const ElfLoadInfo& load = image.load_info();
  ElfFacts facts;
  facts.alpha = load.alpha;
  facts.executable = load.executable;
  facts.interpreter = load.interpreter;
  facts.needed = load.needed;
  facts.problem = load.problem;
  facts.static_glibc_without_ehdr = load.alpha && static_glibc_without_ehdr(image);
  return facts;
}

}  // namespace dcpi::qemu
