// The oracle for isa/: alpha-linux-gnu-objdump -d. Every instruction of every
// image the build produces (kernel, PALcode in both decode modes, newlib's
// libc.a and libm.a) and a sweep of synthetic words must print exactly as
// objdump prints them; the symbol suffix " <sym+off>" is stripped, since it
// depends on objdump's symbol choice rather than on the instruction.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "isa/isa.h"
#include "symbols/disassembler.h"

namespace dcpi::isa {
namespace {

namespace fs = std::filesystem;

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 65536> chunk;
  size_t got;
  while ((got = fread(chunk.data(), 1, chunk.size(), pipe)) > 0) out.append(chunk.data(), got);
  const int status = pclose(pipe);
  EXPECT_EQ(status, 0) << command;
  return out;
}

bool have_objdump() {
  return std::system("alpha-linux-gnu-objdump --version >/dev/null 2>&1") == 0;
}

// One instruction line of objdump -d: "  addr:\tb0 b1 b2 b3 \ttext".
struct ObjdumpLine {
  uint64_t address;
  uint32_t word;
  std::string text;  // without the " <symbol+off>" annotation
};

std::vector<ObjdumpLine> parse_objdump(const std::string& output) {
  std::vector<ObjdumpLine> lines;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    const size_t tab1 = line.find('\t');
    if (tab1 == std::string::npos || tab1 == 0 || line[tab1 - 1] != ':') continue;
    const size_t tab2 = line.find('\t', tab1 + 1);
    if (tab2 == std::string::npos) continue;
    const std::string bytes = line.substr(tab1 + 1, tab2 - tab1 - 1);
    unsigned b[4];
    if (bytes.size() != 12 ||
        std::sscanf(bytes.c_str(), "%x %x %x %x", &b[0], &b[1], &b[2], &b[3]) != 4)
      continue;  // a partial word at the end of a section
    ObjdumpLine entry;
    entry.address = std::stoull(line.substr(0, tab1 - 1), nullptr, 16);
    entry.word = b[0] | b[1] << 8 | b[2] << 16 | static_cast<uint32_t>(b[3]) << 24;
    entry.text = line.substr(tab2 + 1);
    if (!entry.text.empty() && entry.text.back() == '>') {
      const size_t open = entry.text.rfind(" <");
      if (open != std::string::npos) entry.text.erase(open);
    }
    lines.push_back(std::move(entry));
  }
  return lines;
}

// Compares objdump's text with ours for every line; reports the first
// mismatches and the coverage by opcode.
struct Comparison {
  size_t instructions = 0;
  size_t mismatches = 0;
  std::map<unsigned, size_t> by_opcode;
  std::map<std::string, size_t> by_mnemonic;

  void add(const ObjdumpLine& line, DecodeMode mode) {
    char ours[256];
    disassemble(line.word, line.address, ours, sizeof ours, mode);
    ++instructions;
    ++by_opcode[line.word >> 26];
    ++by_mnemonic[line.text.substr(0, line.text.find_first_of("\t "))];
    if (line.text != ours) {
      if (++mismatches <= 20) {
        ADD_FAILURE() << std::hex << "word 0x" << line.word << " at 0x" << line.address
                      << ": objdump '" << line.text << "', isa '" << ours << "'";
      }
    }
  }

  void report(const std::string& what) const {
    std::ostringstream s;
    s << what << ": " << instructions << " instructions, " << mismatches << " mismatches, "
      << by_mnemonic.size() << " distinct mnemonics\n  by opcode:";
    for (const auto& [opcode, count] : by_opcode)
      s << " " << std::hex << opcode << std::dec << ":" << count;
    std::printf("%s\n", s.str().c_str());
  }
};

Comparison compare_file(const std::string& path, DecodeMode mode) {
  const std::string machine = mode == DecodeMode::kPalcode ? " -m alpha:ev6" : "";
  Comparison comparison;
  for (const ObjdumpLine& line :
       parse_objdump(run("alpha-linux-gnu-objdump -d -z" + machine + " '" + path + "'"))) {
    comparison.add(line, mode);
  }
  comparison.report(path + (mode == DecodeMode::kPalcode ? " (PALcode mode)" : ""));
  return comparison;
}

// Our ELF walker must see the same instructions at the same addresses.
void expect_elf_walk_matches(const std::string& path, DecodeMode mode) {
  const std::string machine = mode == DecodeMode::kPalcode ? " -m alpha:ev6" : "";
  const auto lines =
      parse_objdump(run("alpha-linux-gnu-objdump -d -z" + machine + " '" + path + "'"));
  const auto ours = disassemble_elf(path, mode);
  ASSERT_EQ(ours.size(), lines.size()) << path;
  size_t mismatches = 0;
  for (size_t i = 0; i < ours.size(); ++i) {
    if (ours[i].address != lines[i].address || ours[i].word != lines[i].word ||
        ours[i].text != lines[i].text) {
      if (++mismatches <= 10) {
        ADD_FAILURE() << std::hex << "at 0x" << lines[i].address << ": objdump '" << lines[i].text
                      << "', disassemble_elf 0x" << ours[i].address << " '" << ours[i].text << "'";
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

std::string newlib_prefix() {
  std::string out = run(std::string(DCPI_SOURCE_DIR) + "/toolchain/build-newlib.sh 2>/dev/null");
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out.substr(out.rfind('\n') + 1);
}

class IsaOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_objdump()) GTEST_SKIP() << "alpha-linux-gnu-objdump not installed";
  }
};

TEST_F(IsaOracle, KernelImage) {
  ASSERT_TRUE(fs::exists(DCPI_KERNEL_ELF)) << DCPI_KERNEL_ELF;
  const Comparison c = compare_file(DCPI_KERNEL_ELF, DecodeMode::kUser);
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_GT(c.instructions, 1000u);
  expect_elf_walk_matches(DCPI_KERNEL_ELF, DecodeMode::kUser);
}

TEST_F(IsaOracle, PalcodeImageBothModes) {
  ASSERT_TRUE(fs::exists(DCPI_PALCODE_ELF)) << DCPI_PALCODE_ELF;
  const Comparison user = compare_file(DCPI_PALCODE_ELF, DecodeMode::kUser);
  EXPECT_EQ(user.mismatches, 0u);
  const Comparison pal = compare_file(DCPI_PALCODE_ELF, DecodeMode::kPalcode);
  EXPECT_EQ(pal.mismatches, 0u);
  // The PALcode really uses the hw_* instructions the mode exists for.
  EXPECT_GT(pal.by_mnemonic.count("hw_mfpr") + pal.by_mnemonic.count("hw_mtpr"), 0u);
  EXPECT_GT(pal.by_mnemonic.count("hw_ret"), 0u);
  EXPECT_GT(user.by_mnemonic.count("pal19"), 0u);
  expect_elf_walk_matches(DCPI_PALCODE_ELF, DecodeMode::kPalcode);
}

// QEMU's own PALcode ships without a symbol table: objdump then writes branch
// targets as 0x<hex> (issue 17), and disassemble_elf must too.
TEST_F(IsaOracle, ImageWithoutSymbolTableUses0xTargets) {
  const std::string path = "/usr/share/qemu/palcode-clipper";
  if (!fs::exists(path)) GTEST_SKIP() << path << " (Debian's qemu-system-data) not installed";
  const auto ours = disassemble_elf(path, DecodeMode::kPalcode);
  size_t branches = 0, with_0x = 0;
  for (const DisassembledInstruction& d : ours) {
    const Kind kind = d.instruction.kind();
    if (kind != Kind::kBranch && kind != Kind::kConditionalBranch &&
        kind != Kind::kBranchSubroutine)
      continue;
    ++branches;
    with_0x += d.text.find("0xfffffc") != std::string::npos;
  }
  EXPECT_GT(branches, 100u);
  EXPECT_EQ(with_0x, branches) << "every branch target written 0x<hex>";
  expect_elf_walk_matches(path, DecodeMode::kPalcode);
}

// Every newlib-linked workload the build puts in the initrd.
TEST_F(IsaOracle, WorkloadImages) {
  size_t images = 0, instructions = 0;
  for (const auto& entry : fs::directory_iterator(DCPI_WORKLOADS_ALPHA_DIR)) {
    if (!entry.is_regular_file() ||
        (entry.status().permissions() & fs::perms::owner_exec) == fs::perms::none)
      continue;
    const Comparison c = compare_file(entry.path().string(), DecodeMode::kUser);
    EXPECT_EQ(c.mismatches, 0u) << entry.path();
    instructions += c.instructions;
    ++images;
  }
  EXPECT_GE(images, 10u) << "workload executables in " << DCPI_WORKLOADS_ALPHA_DIR;
  EXPECT_GT(instructions, 100000u);
}

TEST_F(IsaOracle, NewlibLibraries) {
  const std::string prefix = newlib_prefix();
  ASSERT_FALSE(prefix.empty());
  for (const char* library : {"/lib/libc.a", "/lib/libm.a"}) {
    const std::string path = prefix + library;
    ASSERT_TRUE(fs::exists(path)) << path;
    const Comparison c = compare_file(path, DecodeMode::kUser);
    EXPECT_EQ(c.mismatches, 0u) << path;
    EXPECT_GT(c.instructions, 10000u) << path;
    if (std::string(library) == "/lib/libm.a") {
      // Real FP code: IEEE operate, FP-independent operate and FP memory.
      EXPECT_GT(c.by_opcode.count(0x16), 0u);
      EXPECT_GT(c.by_opcode.count(0x17), 0u);
      EXPECT_GT(c.by_opcode.count(0x23), 0u);
    } else {
      EXPECT_GT(c.by_mnemonic.count("ldbu"), 0u);  // BWX (newlib is built for EV56)
    }
  }
}

// Words that exercise every function code of every opcode with several
// register patterns, plus uniformly random words; objdump prints undefined
// encodings as ".long", so agreeing on the text also means agreeing on
// which words are invalid.
std::vector<uint32_t> sweep_words() {
  std::vector<uint32_t> words;
  std::mt19937 random(20240601);
  const unsigned patterns[][3] = {{1, 2, 3}, {31, 2, 3},   {1, 31, 3},   {31, 31, 3},
                                  {2, 2, 3}, {31, 31, 31}, {26, 26, 26}, {31, 26, 31}};
  for (unsigned opcode = 0; opcode < 64; ++opcode) {
    for (const auto& r : patterns) {
      const uint32_t base = opcode << 26 | r[0] << 21;
      if ((opcode >= 0x10 && opcode <= 0x13) || opcode == 0x1c) {
        for (uint32_t function = 0; function < 128; ++function) {
          words.push_back(base | r[1] << 16 | function << 5 | r[2]);
          words.push_back(base | (random() & 0xff) << 13 | 1 << 12 | function << 5 | r[2]);
          words.push_back(base | r[1] << 16 | (random() & 7) << 13 | function << 5 | r[2]);
        }
      } else if (opcode >= 0x14 && opcode <= 0x17) {
        for (uint32_t function = 0; function < 2048; ++function)
          words.push_back(base | r[1] << 16 | function << 5 | r[2]);
      } else if (opcode == 0x18) {
        for (uint32_t function = 0; function < 65536; function += 0x200)
          words.push_back(base | r[1] << 16 | function | (random() & 1 ? 0 : (random() & 0x1ff)));
      } else {
        for (int i = 0; i < 64; ++i) words.push_back(base | r[1] << 16 | (random() & 0xffff));
      }
    }
  }
  for (int i = 0; i < 30000; ++i) words.push_back(static_cast<uint32_t>(random()));
  return words;
}

TEST_F(IsaOracle, SweepOfSyntheticWords) {
  const std::vector<uint32_t> words = sweep_words();
  const fs::path dir = fs::temp_directory_path() / ("isa_oracle_" + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    std::ofstream source(dir / "sweep.s");
    source << "\t.text\nstart:\n";  // a symbol, so objdump prints targets as "addr <start+off>"
    for (uint32_t word : words) source << "\t.long 0x" << std::hex << word << "\n";
  }
  run("alpha-linux-gnu-as -o '" + (dir / "sweep.o").string() + "' '" + (dir / "sweep.s").string() +
      "'");
  for (DecodeMode mode : {DecodeMode::kUser, DecodeMode::kPalcode}) {
    const Comparison c = compare_file((dir / "sweep.o").string(), mode);
    EXPECT_EQ(c.instructions, words.size());
    EXPECT_EQ(c.mismatches, 0u);
    EXPECT_GT(c.by_mnemonic.at(".long"), 1000u);  // invalid encodings were part of the sweep
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dcpi::isa
