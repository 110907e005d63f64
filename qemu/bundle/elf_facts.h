// What bundling a program needs to know about an ELF file, read through the
// one ELF model (symbols/elf_image.h: ElfLoadInfo) plus the bundler's own check
// for static glibc programs that cannot start.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace dcpi::qemu {

struct ElfFacts {
  bool alpha = false;               // ELFCLASS64, little-endian, EM_ALPHA
  bool executable = false;          // ET_EXEC or ET_DYN
  std::string interpreter;          // PT_INTERP, empty for a static program
  std::vector<std::string> needed;  // DT_NEEDED
  // Shared-library file names among its read-only strings ("libm.so.6.1"):
  // what it may dlopen by name (glibc's libgcc_s.so.1 for pthread_exit, a
  // program's own dlopen), which a real system has and a bundle must add.
  std::vector<std::string> named_libraries;
  // Why a loader could not read it (truncated, damaged); empty if it could.
  std::string problem;
  // A static glibc program linked with relaxation: GNU ld turned glibc's
  // load of the weak __ehdr_start into a constant 0, so its start-up never
  // finds PT_TLS and dies in __ctype_init, on any kernel (docs/linux-programs.md).
  bool static_glibc_without_ehdr = false;
};

// Throws ElfError (a std::runtime_error) if the file cannot be read as ELF.
ElfFacts read_elf_facts(const std::filesystem::path& file);

}  // namespace dcpi::qemu
