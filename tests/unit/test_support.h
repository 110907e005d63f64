// Shared helpers for the unit tests: fixtures, temporary files, running dcpi.
#pragma once
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace dcpi::testing {

// Path of a built Alpha fixture, or empty if the cross binutils were missing.
std::string fixture_path(const std::string& name);

std::vector<uint8_t> read_file(const std::string& path);
void write_file(const std::string& path, const std::vector<uint8_t>& bytes);

// A directory removed with its contents at the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  double seconds = 0;
};

// One mutation of a valid file for the reader fuzz tests: every third round
// truncates it, the others flip 1 to 5 bits.
inline void damage(std::vector<uint8_t>& bytes, std::mt19937& random, int round) {
  if (round % 3 == 0) {
    bytes.resize(random() % bytes.size());
    return;
  }
  for (int i = 0; i < 1 + round % 5; ++i)
    bytes[random() % bytes.size()] ^= uint8_t(1u << random() % 8);
}

// Whether `part` occurs in `text` (dcpi's output, a report, a message).
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The FDEs binutils' readelf lists in the .eh_frame of the ELF file at
// `path`: [begin, end) each, in file order (the oracle for stripped code).
std::vector<std::pair<uint64_t, uint64_t>> readelf_fdes(const std::string& path);

// Runs the dcpi binary with `arguments` (each shell-quoted); a hang is cut
// off by timeout(1) after 30 s so a broken build cannot stall the suite.
CommandResult run_dcpi(const std::vector<std::string>& arguments);
// The same, run from `directory` (for the default ./dcpi.db).
CommandResult run_dcpi_in(const std::string& directory, const std::vector<std::string>& arguments);

}  // namespace dcpi::testing
