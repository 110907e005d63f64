#include "test_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

namespace dcpi::testing {
namespace {

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

std::string fixture_path(const std::string& name) {
  const std::string path = std::string(DCPI_FIXTURE_DIR) + "/" + name;
  return std::filesystem::exists(path) ? path : std::string();
}

std::vector<std::pair<uint64_t, uint64_t>> readelf_fdes(const std::string& path) {
  std::vector<std::pair<uint64_t, uint64_t>> fdes;
  FILE* pipe = popen(
      ("alpha-linux-gnu-readelf --debug-dump=frames " + shell_quote(path) + " 2>/dev/null").c_str(),
      "r");
  if (pipe == nullptr) return fdes;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    const char* pc = std::strstr(line, " FDE ") ? std::strstr(line, "pc=") : nullptr;
    unsigned long long begin = 0, end = 0;
    if (pc && std::sscanf(pc, "pc=%llx..%llx", &begin, &end) == 2) fdes.emplace_back(begin, end);
  }
  pclose(pipe);
  return fdes;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

TempDir::TempDir() {
  std::random_device random;
  path_ = std::filesystem::temp_directory_path() /
          ("dcpi-unit-" + std::to_string(getpid()) + "-" + std::to_string(random()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

CommandResult run_dcpi(const std::vector<std::string>& arguments) {
  return run_dcpi_in("", arguments);
}

CommandResult run_dcpi_in(const std::string& directory, const std::vector<std::string>& arguments) {
  const TempDir dir;
  std::string command = directory.empty() ? "" : "cd " + shell_quote(directory) + " && ";
  command += "timeout 30 " + shell_quote(DCPI_BINARY);
  for (const std::string& argument : arguments) command += " " + shell_quote(argument);
  command += " >" + shell_quote(dir.file("out")) + " 2>" + shell_quote(dir.file("err"));
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  CommandResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_text(dir.file("out"));
  result.err = read_text(dir.file("err"));
  return result;
}

}  // namespace dcpi::testing
