#include "qemu/bundle/elf_facts.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <string_view>

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

// A file name as dlopen takes one from the library path: no directory,
// "lib"-free names allowed, ".so" then only version numbers ("libx.so.1.2").
bool looks_like_library_name(std::string_view text) {
  const size_t so = text.rfind(".so");
  if (text.size() < 4 || so == 0 || so == std::string_view::npos) return false;
  const auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '+' ||
           c == '.';
  };
  if (!std::all_of(text.begin(), text.end(), name_char)) return false;
  std::string_view version = text.substr(so + 3);
  if (version.empty()) return true;
  if (version.front() != '.' || version.back() == '.') return false;
  return std::all_of(version.begin(), version.end(), [](char c) {
    return c == '.' || std::isdigit(static_cast<unsigned char>(c));
  });
}

// The NUL-terminated strings of the allocated, non-executable, read-only
// sections (.rodata, .dynstr) that name a shared library.
std::vector<std::string> named_libraries(const ElfImage& image) {
  std::set<std::string> names;
  const std::vector<ElfSection>* sections = nullptr;
  try {
    sections = &image.sections();
  } catch (const ElfError&) {  // no section headers: only DT_NEEDED is known
    return {};
  }
  for (const ElfSection& section : *sections) {
    if (!section.allocated || section.executable || section.writable) continue;
    const auto* text = reinterpret_cast<const char*>(section.bytes.data());
    size_t start = 0;
    for (size_t at = 0; at < section.bytes.size(); ++at) {
      if (text[at] != '\0') continue;
      const std::string_view word(text + start, at - start);
      if (looks_like_library_name(word)) names.emplace(word);
      start = at + 1;
    }
  }
  return {names.begin(), names.end()};
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
  if (load.alpha) facts.named_libraries = named_libraries(image);
  facts.static_glibc_without_ehdr = load.alpha && static_glibc_without_ehdr(image);
  return facts;
}

}  // namespace dcpi::qemu
