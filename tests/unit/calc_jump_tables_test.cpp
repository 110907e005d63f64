// Jump tables (analysis/calc/decode/jump_tables.h) on real cross-compiled code:
// fixtures/jump_tables.c built with the guest's compiler and flags, checked
// against the assembler's relocations (every .rodata GPREL32 entry names its
// case label), and fixtures/jump_tables_asm.S for a table reached through the
// GOT and for tables that must stay unresolved. The guest images' tables are
// checked too when the guest build is there.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "analysis/calc/decode/isa_adapter.h"
#include "analysis/calc/decode/jump_tables.h"
#include "analysis/calc/estimate/cfg.h"
#include "analysis/calc/frontend/code_image.h"
#include "symbols/elf_image.h"
#include "symbols/elf_symbols.h"
#include "test_support.h"

namespace dcpi {
namespace {

using namespace calc;

// `objdump -rt` of the fixture's object: function offsets in .text, and the
// .rodata words that are gp-relative (GPREL32) offsets to .text.
struct ObjectOracle {
  std::map<std::string, uint64_t> functions;  // name -> offset in .text
  std::map<uint64_t, uint64_t> gprel32;       // .rodata offset -> .text offset
  std::set<uint64_t> table_starts;            // .rodata offsets the code addresses
};

uint64_t hex_value(const std::string& text) { return std::stoull(text, nullptr, 16); }

ObjectOracle read_oracle(const std::string& path) {
  ObjectOracle oracle;
  std::ifstream in(path);
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.starts_with("RELOCATION RECORDS FOR [")) {
      section = line.substr(24, line.find(']') - 24);
      continue;
    }
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string word; fields >> word;) f.push_back(word);
    if (f.size() >= 5 && f[f.size() - 4] == ".text" &&
        std::find(f.begin(), f.end(), "F") != f.end()) {
      oracle.functions[f.back()] = hex_value(f[0]);  // symbol table line
      continue;
    }
    if (f.size() != 3 || f[0].size() != 16) continue;
    const size_t plus = f[2].find('+');  // ".text+0x50", or ".rodata" for offset 0
    const std::string symbol = f[2].substr(0, plus);
    const uint64_t addend = plus == std::string::npos ? 0 : hex_value(f[2].substr(plus + 3));
    if (section == ".rodata" && f[1] == "GPREL32" && symbol == ".text")
      oracle.gprel32[hex_value(f[0])] = addend;
    if (section == ".text" && f[1] == "GPRELHIGH" && symbol == ".rodata")
      oracle.table_starts.insert(addend);
  }
  return oracle;
}

uint64_t section_address(const std::string& elf, const std::string& name) {
  const ElfImage image = ElfImage::open(elf);
  for (const ElfSection& s : image.sections())
    if (s.name == name) return s.address;
  return 0;
}

TEST(CalcJumpTables, GccSwitchesResolveToTheirCaseLabels) {
  const std::string elf = dcpi::testing::fixture_path("jump_tables.elf");
  if (elf.empty()) GTEST_SKIP() << "alpha-linux-gnu-gcc not installed";
  const ObjectOracle oracle = read_oracle(dcpi::testing::fixture_path("jump_tables.relocs"));
  ASSERT_FALSE(oracle.gprel32.empty());
  ASSERT_FALSE(oracle.table_starts.empty());
  const uint64_t rodata = section_address(elf, ".rodata");
  const uint64_t text = section_address(elf, ".text");
  ASSERT_NE(rodata, 0u);
  ASSERT_EQ(text, 0x120000000u);

  // The oracle's tables: from each start the code addresses to the next.
  std::map<uint64_t, std::set<uint64_t>> oracle_targets;
  std::map<uint64_t, uint64_t> oracle_entries;
  for (auto start = oracle.table_starts.begin(); start != oracle.table_starts.end(); ++start) {
    const auto next = std::next(start);
    for (auto e = oracle.gprel32.lower_bound(*start);
         e != oracle.gprel32.end() && (next == oracle.table_starts.end() || e->first < *next);
         ++e) {
      oracle_targets[*start].insert(text + e->second);
      ++oracle_entries[*start];
    }
  }

  // Entry counts from the C source: the bound each switch implies.
  const std::map<std::string, std::vector<uint64_t>> expected = {
      {"dense", {7}},  {"holes", {8}},      {"wide", {260}},           {"masked", {8}},
      {"interp", {7}}, {"after_call", {6}}, {"after_local_call", {6}}, {"nested", {6, 5}}};
  const CodeImage image = CodeImage::open(elf);
  size_t tables = 0;
  for (const auto& [name, entries] : expected) {
    SCOPED_TRACE(name);
    const ProcedureRange* procedure = image.find(name);
    ASSERT_NE(procedure, nullptr);
    EXPECT_EQ(procedure->start, text + oracle.functions.at(name));  // offsets kept by the link
    ProcedureCode code = image.code(*procedure);
    std::vector<const IndirectJump*> read;
    for (const IndirectJump& j : code.indirect_jumps) {
      EXPECT_EQ(j.kind, IndirectJumpKind::kJumpTable) << describe(j);
      EXPECT_TRUE(j.table.has_value()) << describe(j);
      if (j.table) read.push_back(&j);
    }
    ASSERT_EQ(read.size(), entries.size());
    for (size_t k = 0; k < read.size(); ++k) {
      const JumpTable& t = *read[k]->table;
      const uint64_t offset = t.table - rodata;
      ASSERT_TRUE(oracle.table_starts.count(offset)) << std::hex << t.table;
      EXPECT_EQ(t.entries, entries[k]);
      EXPECT_EQ(t.entries, oracle_entries.at(offset));
      EXPECT_EQ(std::set<uint64_t>(t.targets.begin(), t.targets.end()), oracle_targets.at(offset));
      // The jmp record carries the same targets, and the CFG has those edges.
      const auto record =
          std::find_if(code.records.begin(), code.records.end(),
                       [&](const InstructionRecord& r) { return r.address == read[k]->address; });
      ASSERT_NE(record, code.records.end());
      EXPECT_EQ(record->jump_targets, t.targets);
      // holes: the holes at 12 and 16 go to the default label, 7 targets.
      if (name == "holes") {
        EXPECT_EQ(t.targets.size(), 7u);
      }
      ++tables;
    }
    const ControlFlowGraph cfg = build_cfg(code.records, code.extra_entries);
    EXPECT_FALSE(cfg.missing_edges());
    for (const IndirectJump* j : read) {
      const BasicBlock& block = cfg.block(cfg.block_at(j->address));
      std::set<uint64_t> successors;
      for (EdgeId e : block.outgoing) successors.insert(cfg.block(cfg.edge(e).to).start);
      EXPECT_EQ(successors, std::set<uint64_t>(j->table->targets.begin(), j->table->targets.end()));
    }
  }
  EXPECT_EQ(tables, oracle.table_starts.size());  // every table of the object was read
}

TEST(CalcJumpTables, TableThroughTheGotAndTablesThatMustNotBeRead) {
  const std::string elf = dcpi::testing::fixture_path("jump_tables_asm.elf");
  if (elf.empty()) GTEST_SKIP() << "alpha-linux-gnu binutils not installed";
  const CodeImage image = CodeImage::open(elf);
  const ElfSymbols symbols = ElfSymbols::open(elf);
  auto label = [&](const std::string& name) -> uint64_t {
    for (const ElfSymbol& s : symbols.symbols())
      if (s.name == name) return s.address;
    ADD_FAILURE() << "no symbol " << name;
    return 0;
  };

  {  // ldq t0, tab(gp) !literal: the table's address from the GOT.
    ProcedureCode code = image.code(*image.find("got_table"));
    ASSERT_EQ(code.indirect_jumps.size(), 1u);
    const IndirectJump& j = code.indirect_jumps[0];
    ASSERT_TRUE(j.table.has_value()) << describe(j);
    EXPECT_EQ(j.table->entries, 4u);
    EXPECT_EQ(j.table->targets,
              (std::vector<uint64_t>{label("got_table_0"), label("got_table_1"),
                                     label("got_table_2"), label("got_table_3")}));
    EXPECT_EQ(describe(j), "jump table (4 entries, 4 targets)");
    EXPECT_FALSE(build_cfg(code.records, code.extra_entries).missing_edges());
  }

  const std::map<std::string, std::string> problems = {
      {"foreign_entry", "table entry 2 at "},  // a label of another procedure
      {"short_table", "table entry 4 at "},    // bound 5, table of 4
      {"unbounded", "not base + entry of a bounded"},
      {"writable_table", "not in the image's read-only data"},
  };
  for (const auto& [name, problem] : problems) {
    SCOPED_TRACE(name);
    ProcedureCode code = image.code(*image.find(name));
    ASSERT_EQ(code.indirect_jumps.size(), 1u);
    const IndirectJump& j = code.indirect_jumps[0];
    EXPECT_EQ(j.kind, IndirectJumpKind::kJumpTable);
    EXPECT_FALSE(j.table.has_value());
    EXPECT_NE(j.problem.find(problem), std::string::npos) << j.problem;
    EXPECT_NE(describe(j).find("not read"), std::string::npos);
    for (const InstructionRecord& r : code.records) EXPECT_TRUE(r.jump_targets.empty());
    EXPECT_TRUE(build_cfg(code.records, code.extra_entries).missing_edges());
  }

  // Issue 17: the table's address kept in t5 across a call in one case;
  // got_remq_loop recomputes it from gp after a `jsr t9` through the GOT.
  for (const char* name : {"remq_loop", "leaf_loop", "got_remq_loop"}) {
    SCOPED_TRACE(name);
    ProcedureCode code = image.code(*image.find(name));
    ASSERT_EQ(code.indirect_jumps.size(), 1u);
    const IndirectJump& j = code.indirect_jumps[0];
    ASSERT_TRUE(j.table.has_value()) << describe(j);
    EXPECT_EQ(j.table->entries, 3u);
    const std::string n = name;
    EXPECT_EQ(j.table->targets,
              (std::vector<uint64_t>{label(n + "_0"), label(n + "_1"), label(n + "_2")}));
    EXPECT_FALSE(build_cfg(code.records, code.extra_entries).missing_edges());
  }
  {  // A callee that writes t5: the reason names the call that lost it.
    ProcedureCode code = image.code(*image.find("clobber_loop"));
    ASSERT_EQ(code.indirect_jumps.size(), 1u);
    const IndirectJump& j = code.indirect_jumps[0];
    EXPECT_FALSE(j.table.has_value());
    uint64_t call = 0;
    for (const InstructionRecord& r : code.records)
      if (r.control_flow == ControlFlow::kCall) call = r.address;
    EXPECT_NE(j.problem.find("the table address (t5) is unknown: the call at " +
                             fmt::format("{:x}", call)),
              std::string::npos)
        << j.problem;
  }
  {  // The masks behind it.
    const CallClobbers& calls = image.call_clobbers();
    const RegisterMask t0 = 1u << 1, t5 = 1u << 6, t9 = 1u << 23, t12 = 1u << 27, at = 1u << 28;
    EXPECT_EQ(calls.of(label("__remq")), t9 | t12 | at);
    EXPECT_EQ(calls.of(label("writes_t0")), t0);
    EXPECT_EQ(calls.of(label("writes_t5")), t5);
    EXPECT_EQ(calls.of(std::nullopt), caller_saved_registers());
    EXPECT_EQ(calls.of(label("remq_loop")), caller_saved_registers())
        << "an indirect jmp: the summary does not follow it";
    EXPECT_EQ(calls.name_of(label("__remq")), "__remq");
  }

  {  // One good table, one unknown jmp: nothing is used.
    ProcedureCode code = image.code(*image.find("one_of_two"));
    ASSERT_EQ(code.indirect_jumps.size(), 2u);
    EXPECT_EQ(code.indirect_jumps[0].kind, IndirectJumpKind::kJumpTable);
    EXPECT_FALSE(code.indirect_jumps[0].table.has_value());
    EXPECT_NE(code.indirect_jumps[0].problem.find("another indirect jump"), std::string::npos);
    EXPECT_EQ(code.indirect_jumps[1].kind, IndirectJumpKind::kUnknown);
    EXPECT_TRUE(build_cfg(code.records, code.extra_entries).missing_edges());
  }
}

TEST(CalcJumpTables, ImageDataReadsLittleEndianInsideOneSegment) {
  ImageData data;
  data.add(0x1000, {0x11, 0x22, 0x33, 0x44, 0x55});
  EXPECT_EQ(data.read(0x1000, 4), 0x44332211u);
  EXPECT_EQ(data.read(0x1001, 4), 0x55443322u);
  EXPECT_EQ(data.read(0x1002, 4), std::nullopt);  // runs past the end
  EXPECT_EQ(data.read(0xfff, 1), std::nullopt);
  EXPECT_EQ(data.read(0x1004, 1), 0x55u);
  EXPECT_EQ(data.read(0x1005, 1), std::nullopt);
}

// Every switch table GCC emitted into the kernel and the workloads (newlib's
// printf and strerror, the kernel's printf, system call dispatch, the value
// sampler's interpreter, the bytecode workload's dispatch across __remq and
// __divq) is read; no other indirect jump is left.
TEST(CalcJumpTables, EveryJumpTableInTheGuestImagesIsRead) {
  const std::filesystem::path guest = DCPI_GUEST_BINARY_DIR;
  std::vector<std::filesystem::path> images = {guest / "kernel" / "kernel.elf"};
  for (const char* w : {"copy", "compress", "mathcall", "dcpictl", "init", "bytecode"})
    images.push_back(guest / "workloads" / w);
  size_t tables = 0;
  for (const std::filesystem::path& path : images) {
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not built";
    const CodeImage image = CodeImage::open(path.string());
    for (const ProcedureRange& p : image.procedures()) {
      const ProcedureCode code = image.code(p);
      for (const IndirectJump& j : code.indirect_jumps) {
        if (j.kind == IndirectJumpKind::kTailCall) continue;
        EXPECT_TRUE(j.table.has_value()) << path.filename() << " " << p.name << " jmp at "
                                         << std::hex << j.address << ": " << describe(j);
        tables += j.table.has_value();
      }
    }
  }
  EXPECT_GE(tables, 20u);
}

}  // namespace
}  // namespace dcpi

namespace dcpi {
namespace {

// glibc's printf worker (vfprintf-internal.c) dispatches on each format
// character with computed gotos: a class byte from one table (read with
// ldq_u/extbl, no compare: the index is a byte), a label offset from a
// second table added to a label's address, and GCC's cross-jumping merges
// the dispatches' ends into shared jmps that several tables reach. Every
// jump of the procedure with the most indirect jumps in Debian's libc for
// Alpha resolves (it had 30 unresolved, and every block its own frequency
// class), each target an instruction of the procedure.
// OSF/1's unprivileged CALL_PALs with a fixed effect change only what they
// must: glibc reads its thread pointer with rduniq (v0) in the middle of
// procedures whose tables live off gp, and a system call keeps gp, ra, sp
// and s0-s6 (glibc's inline_syscall_clobbers).
TEST(CalcJumpTables, PalCallsChangeOnlyWhatTheyWrite) {
  const auto bit = [](unsigned r) { return RegisterMask{1} << r; };
  EXPECT_EQ(pal_call_clobbers(0x9e), bit(0));           // rduniq
  EXPECT_EQ(pal_call_clobbers(0x9f), RegisterMask{0});  // wruniq
  const RegisterMask syscall = pal_call_clobbers(0x83).value();
  for (unsigned kept : {9u, 10u, 11u, 12u, 13u, 14u, 15u, 26u, 29u, 30u})
    EXPECT_FALSE(syscall & bit(kept)) << kept;
  for (unsigned lost : {0u, 1u, 8u, 16u, 19u, 21u, 25u, 27u, 28u})
    EXPECT_TRUE(syscall & bit(lost)) << lost;
  EXPECT_FALSE(pal_call_clobbers(0x35).has_value());  // swpipl: the caller-saved set
}

TEST(CalcJumpTables, GlibcsPrintfDispatchesResolve) {
  const std::filesystem::path libc = "/usr/alpha-linux-gnu/lib/libc.so.6.1";
  if (!std::filesystem::exists(libc)) GTEST_SKIP() << "no Alpha sysroot";
  const CodeImage image = CodeImage::open(libc.string());
  size_t most = 0, resolved = 0, all = 0;
  std::string worst;
  for (const ProcedureRange& p : image.procedures()) {
    const ProcedureCode code = image.code(p);
    size_t jumps = 0, tables = 0;
    for (const IndirectJump& j : code.indirect_jumps) {
      if (j.kind == IndirectJumpKind::kTailCall) continue;
      ++jumps;
      if (!j.table) continue;
      ++tables;
      for (uint64_t t : j.table->targets) EXPECT_TRUE(t >= p.start && t < p.end) << p.name;
    }
    all += jumps;
    resolved += tables;
    if (jumps > most)
      most = jumps,
      worst = p.name + ": " + std::to_string(tables) + " of " + std::to_string(jumps) + " resolved";
    if (jumps >= 20) EXPECT_EQ(tables, jumps) << p.name;
  }
  EXPECT_GE(most, 20u) << worst;
  EXPECT_GE(resolved * 10, all * 8) << resolved << " of " << all;
  std::printf("libc: %zu of %zu indirect jumps resolved; most in one procedure: %s\n", resolved,
              all, worst.c_str());
}

// Lua 5.4's interpreter (the real mix's liblua, built with GCC's computed
// gotos) dispatches through `static const void* const disptab[]`: absolute
// label addresses in .data.rel.ro, relocated by R_ALPHA_RELATIVE, indexed by
// the opcode's 7 bits (and x,0x7f; s8addq; ldq). The table is read through
// its relocations and ends at its 83 opcodes (NUM_OPCODES), where the slots
// stop holding the procedure's addresses; before, every block of the mix's
// hottest procedure had its own frequency class.
TEST(CalcJumpTables, LuasComputedGotoTableOfAddressesResolves) {
  const std::filesystem::path lua = std::filesystem::path(DCPI_REAL_MIX_DIR) / "lib/liblua5.4.so.0";
  if (!std::filesystem::exists(lua)) GTEST_SKIP() << "no real mix built";
  const CodeImage image = CodeImage::open(lua.string());
  bool found = false;
  for (const ProcedureRange& p : image.procedures()) {
    if (p.name != "luaV_execute") continue;
    for (const IndirectJump& j : image.code(p).indirect_jumps) {
      if (j.kind == IndirectJumpKind::kTailCall) continue;
      ASSERT_TRUE(j.table.has_value()) << describe(j);
      EXPECT_EQ(j.table->entries, 83u);
      EXPECT_GE(j.table->targets.size(), 60u);
      for (uint64_t t : j.table->targets) EXPECT_TRUE(t >= p.start && t < p.end);
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace dcpi
