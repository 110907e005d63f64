#include "qemu/bundle/elf_facts.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <stdexcept>

namespace dcpi::qemu {
namespace {

constexpr uint16_t kMachineAlpha = 0x9026;  // EM_ALPHA as binutils writes it

struct ElfCloser {
  void operator()(Elf* elf) const { elf_end(elf); }
};

void read_program_headers(Elf* elf, ElfFacts& facts, bool* has_tls, uint64_t* header_address) {
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) == nullptr) continue;
    if (ph.p_type == PT_TLS) *has_tls = true;
    if (ph.p_type == PT_LOAD && ph.p_offset == 0) *header_address = ph.p_vaddr;
    if (ph.p_type != PT_INTERP) continue;
    size_t size = 0;
    const char* raw = elf_rawfile(elf, &size);
    if (raw && ph.p_offset < size && ph.p_filesz <= size - ph.p_offset)
      facts.interpreter = std::string(raw + ph.p_offset, strnlen(raw + ph.p_offset, ph.p_filesz));
  }
}

void read_dynamic(Elf* elf, Elf_Scn* section, const GElf_Shdr& header, ElfFacts& facts) {
  Elf_Data* data = elf_getdata(section, nullptr);
  if (data == nullptr || header.sh_entsize == 0) return;
  for (size_t i = 0; i < header.sh_size / header.sh_entsize; ++i) {
    GElf_Dyn entry;
    if (gelf_getdyn(data, static_cast<int>(i), &entry) == nullptr) break;
    if (entry.d_tag != DT_NEEDED) continue;
    if (const char* name = elf_strptr(elf, header.sh_link, entry.d_un.d_val))
      facts.needed.emplace_back(name);
  }
}

bool got_holds(Elf_Scn* section, uint64_t address) {
  Elf_Data* data = elf_getdata(section, nullptr);
  if (data == nullptr || data->d_buf == nullptr) return false;
  const auto* bytes = static_cast<const unsigned char*>(data->d_buf);
  for (size_t at = 0; at + 8 <= data->d_size; at += 8) {
    uint64_t word;
    std::memcpy(&word, bytes + at, 8);
    if (word == address) return true;
  }
  return false;
}

}  // namespace

ElfFacts read_elf_facts(const std::filesystem::path& file) {
  elf_version(EV_CURRENT);
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(file.string() + ": " + std::strerror(errno));
  std::unique_ptr<Elf, ElfCloser> elf(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
  ElfFacts facts;
  GElf_Ehdr header;
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF || gelf_getehdr(elf.get(), &header) == nullptr) {
    close(fd);
    throw std::runtime_error(file.string() + " is not an ELF file");
  }
  facts.alpha = header.e_ident[EI_CLASS] == ELFCLASS64 && header.e_ident[EI_DATA] == ELFDATA2LSB &&
                header.e_machine == kMachineAlpha;
  facts.executable = header.e_type == ET_EXEC || header.e_type == ET_DYN;
  bool has_tls = false, glibc = false, got_has_header = false, has_got = false;
  uint64_t header_address = ~uint64_t{0};
  read_program_headers(elf.get(), facts, &has_tls, &header_address);
  size_t names = 0;
  elf_getshdrstrndx(elf.get(), &names);
  for (Elf_Scn* section = nullptr; (section = elf_nextscn(elf.get(), section)) != nullptr;) {
    GElf_Shdr sh;
    if (gelf_getshdr(section, &sh) == nullptr) continue;
    const char* name = elf_strptr(elf.get(), names, sh.sh_name);
    if (sh.sh_type == SHT_DYNAMIC) read_dynamic(elf.get(), section, sh, facts);
    if (name && std::strcmp(name, "__libc_freeres_fn") == 0) glibc = true;
    if (name && std::strcmp(name, ".got") == 0) {
      has_got = true;
      got_has_header = got_holds(section, header_address);
    }
  }
  facts.static_glibc_without_ehdr =
      facts.interpreter.empty() && glibc && has_tls && has_got && !got_has_header;
  close(fd);
  return facts;
}

}  // namespace dcpi::qemu
