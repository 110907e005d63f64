#include "analysis/symbols/disassembler.h"

#include <gelf.h>
#include <libelf.h>

#include <fstream>
#include <iterator>
#include <memory>

namespace dcpi {
namespace {

// objdump's annotation: the containing function and the offset into it.
void print_with_symbol(void* context, uint64_t address, isa::TextBuffer& out) {
  out.put_hex(address);
  const auto* symbols = static_cast<const ElfSymbols*>(context);
  const ElfSymbol* function = symbols->function_containing(address);
  if (function == nullptr) return;
  out.put(" <");
  out.put(function->name.c_str());
  if (address != function->address) {
    out.put("+0x");
    out.put_hex(address - function->address);
  }
  out.put('>');
}

std::string text_of(const isa::Instruction& instruction, uint64_t address,
                    const ElfSymbols* symbols) {
  char buffer[512];
  const isa::AddressPrinter printer{print_with_symbol, const_cast<ElfSymbols*>(symbols)};
  isa::print_instruction(instruction, address, buffer, sizeof buffer,
                         symbols != nullptr ? &printer : nullptr);
  return buffer;
}

}  // namespace

std::string disassemble_word(uint32_t word, uint64_t address, isa::DecodeMode mode,
                             const ElfSymbols* symbols) {
  return text_of(isa::decode(word, mode), address, symbols);
}

std::vector<LoadedSection> read_loaded_sections(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw ElfError("cannot open " + path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  elf_version(EV_CURRENT);
  std::unique_ptr<Elf, int (*)(Elf*)> elf(elf_memory(bytes.data(), bytes.size()), elf_end);
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) throw ElfError(path + " is not an ELF file");
  GElf_Ehdr header;
  if (!gelf_getehdr(elf.get(), &header)) throw ElfError(path + ": bad ELF header");
  if (header.e_ident[EI_DATA] != ELFDATA2LSB) throw ElfError(path + ": not little-endian");
  size_t names_index = 0;
  if (elf_getshdrstrndx(elf.get(), &names_index) != 0) throw ElfError(path + ": no section names");

  std::vector<LoadedSection> sections;
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf.get(), scn));) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr)) throw ElfError(path + ": bad section header");
    if (shdr.sh_type != SHT_PROGBITS || (shdr.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == 0)
      continue;
    LoadedSection section;
    const char* name = elf_strptr(elf.get(), names_index, shdr.sh_name);
    section.name = name != nullptr ? name : "";
    section.address = shdr.sh_addr;
    section.executable = (shdr.sh_flags & SHF_EXECINSTR) != 0;
    section.writable = (shdr.sh_flags & SHF_WRITE) != 0;
    Elf_Data* data = elf_rawdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr) continue;
    const auto* p = static_cast<const uint8_t*>(data->d_buf);
    section.bytes.assign(p, p + data->d_size);
    sections.push_back(std::move(section));
  }
  return sections;
}

std::vector<CodeSection> read_code_sections(const std::string& path) {
  std::vector<CodeSection> sections;
  for (const LoadedSection& loaded : read_loaded_sections(path)) {
    if (!loaded.executable) continue;
    CodeSection section{.name = loaded.name, .address = loaded.address};
    const std::vector<uint8_t>& p = loaded.bytes;
    for (size_t i = 0; i + 4 <= p.size(); i += 4) {
      section.words.push_back(uint32_t{p[i]} | uint32_t{p[i + 1]} << 8 | uint32_t{p[i + 2]} << 16 |
                              uint32_t{p[i + 3]} << 24);
    }
    sections.push_back(std::move(section));
  }
  return sections;
}

std::vector<DisassembledInstruction> disassemble_elf(const std::string& path, isa::DecodeMode mode,
                                                     const ElfSymbols* symbols) {
  std::vector<DisassembledInstruction> result;
  for (const CodeSection& section : read_code_sections(path)) {
    uint64_t address = section.address;
    for (uint32_t word : section.words) {
      DisassembledInstruction d;
      d.address = address;
      d.word = word;
      d.instruction = isa::decode(word, mode);
      d.text = text_of(d.instruction, address, symbols);
      result.push_back(std::move(d));
      address += 4;
    }
  }
  return result;
}

}  // namespace dcpi
