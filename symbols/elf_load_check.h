// What a program loader (the kernel's, ld.so) must be able to read in an ELF
// file: every program header's bytes inside the file, and the dynamic
// section's DT_NEEDED names inside its string table. A truncated or damaged
// file fails here, on the host, with the reason, instead of in the guest
// (issue 30). Used by ElfReader for ElfLoadInfo::problem.
#pragma once
#include <gelf.h>

#include <string>
#include <string_view>
#include <vector>

namespace dcpi {

// Empty if a loader can read `segments` of `file`; else one phrase saying
// what it cannot ("PT_LOAD 2 ends at byte 9000 of a 4096-byte file").
std::string loader_problem(std::string_view file, const std::vector<GElf_Phdr>& segments);

}  // namespace dcpi
