// The CFI interpreter (symbols/cfi_unwinder.h) against binutils' own reading
// of the same tables: `alpha-linux-gnu-readelf -wF` prints, for every FDE of
// Debian's Alpha libc, each row's CFA rule and where each register is saved.
// For every row the step from its first address must give the caller's sp
// = the CFA, and every register the row says is saved at CFA-N must be read
// from CFA-N (an oracle this project did not write).
#include "symbols/cfi_unwinder.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace dcpi {
namespace {

#ifndef DCPI_ALPHA_LIBC
#define DCPI_ALPHA_LIBC "/usr/alpha-linux-gnu/lib/libc.so.6.1"
#endif
#ifndef DCPI_ALPHA_READELF
#define DCPI_ALPHA_READELF "alpha-linux-gnu-readelf"
#endif

struct OracleRow {
  uint64_t loc = 0;
  int cfa_register = 0;
  int64_t cfa_offset = 0;
  std::map<int, std::string> rules;  // register -> "u" or "c-N"
};

int register_of(const std::string& column) {
  if (column == "ra") return kAlphaDwarfRa;
  if (column.size() > 1 && column[0] == 'r') return std::stoi(column.substr(1));
  return -1;
}

std::vector<OracleRow> readelf_rows(const std::string& file) {
  std::vector<OracleRow> rows;
  const std::string command = std::string(DCPI_ALPHA_READELF) + " -wF " + file;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return rows;
  std::vector<int> columns;
  char buffer[4096];
  bool in_fde = false;  // a CIE's rows are its initial state, not code addresses
  while (fgets(buffer, sizeof buffer, pipe.get())) {
    const std::string text(buffer);
    if (text.find(" FDE ") != std::string::npos) in_fde = true;
    if (text.find(" CIE") != std::string::npos) in_fde = false;
    if (!in_fde) continue;
    std::istringstream line(buffer);
    std::string first;
    if (!(line >> first)) continue;
    if (first == "LOC") {
      columns.clear();
      std::string column;
      line >> column;  // CFA
      while (line >> column) columns.push_back(register_of(column));
      continue;
    }
    if (first.size() != 16 || first.find_first_not_of("0123456789abcdef") != std::string::npos)
      continue;
    OracleRow row;
    row.loc = std::stoull(first, nullptr, 16);
    std::string cfa;
    line >> cfa;  // r30+48
    const size_t plus = cfa.find('+');
    if (cfa[0] != 'r' || plus == std::string::npos) continue;  // expressions: not compared
    row.cfa_register = std::stoi(cfa.substr(1, plus - 1));
    row.cfa_offset = std::stoll(cfa.substr(plus + 1));
    for (int reg : columns) {
      std::string rule;
      if (!(line >> rule)) break;
      if (reg >= 0) row.rules[reg] = rule;
    }
    rows.push_back(row);
  }
  return rows;
}

uint64_t stored_at(uint64_t address) { return address * 3 + 1; }

TEST(CfiUnwinder, AgreesWithReadelfOnEveryRowOfLibc) {
  if (!std::filesystem::exists(DCPI_ALPHA_LIBC)) GTEST_SKIP() << "no " << DCPI_ALPHA_LIBC;
  const std::vector<OracleRow> rows = readelf_rows(DCPI_ALPHA_LIBC);
  ASSERT_GT(rows.size(), 5000u) << "readelf -wF gave too few rows";
  std::string problem;
  const std::unique_ptr<CfiTable> table = CfiTable::open(DCPI_ALPHA_LIBC, &problem);
  ASSERT_NE(table, nullptr) << problem;
  UnwindRegisters regs;
  for (int reg = 0; reg < 31; ++reg) regs.set(reg, 0x1000000 + 0x100 * reg);
  regs.set(kAlphaDwarfSp, 0x11ff00000);
  const StackReader read = [](uint64_t address, uint64_t* value) {
    *value = stored_at(address);
    return true;
  };
  size_t checked = 0, saved = 0;
  for (const OracleRow& row : rows) {
    const UnwindStep step = table->step(row.loc, regs, read);
    const uint64_t cfa = regs.value[row.cfa_register] + static_cast<uint64_t>(row.cfa_offset);
    const std::string& ra_rule = row.rules.count(kAlphaDwarfRa) ? row.rules.at(kAlphaDwarfRa) : "u";
    if (!step.caller) {
      // Only an explicit undefined return address ends a chain (readelf
      // prints it as "u" too).
      EXPECT_EQ(step.stop, UnwindStop::kOutermost) << std::hex << row.loc;
      EXPECT_EQ(ra_rule, "u") << std::hex << row.loc;
      continue;
    }
    ++checked;
    if (!row.rules.count(kAlphaDwarfSp) || row.rules.at(kAlphaDwarfSp) == "u") {
      EXPECT_EQ(step.caller->value[kAlphaDwarfSp], cfa) << std::hex << row.loc;
    }
    for (const auto& [reg, rule] : row.rules) {
      if (reg >= 32) continue;  // FP registers: the unwinder follows the integer ones
      // An unmentioned sp is the CFA (the ABI's rule), checked above.
      if (reg == kAlphaDwarfSp && rule == "u") continue;
      const uint64_t caller = reg == kAlphaDwarfRa ? step.return_address : step.caller->value[reg];
      if (rule == "u") {
        EXPECT_EQ(caller, regs.value[reg]) << std::hex << row.loc << " r" << std::dec << reg;
      } else if (rule.rfind("c-", 0) == 0) {
        ++saved;
        EXPECT_EQ(caller, stored_at(cfa - std::stoull(rule.substr(2))))
            << std::hex << row.loc << " r" << std::dec << reg << " " << rule;
      }
    }
  }
  EXPECT_GT(checked, 5000u);
  EXPECT_GT(saved, 5000u);
}

TEST(CfiUnwinder, NoCfiOutsideEveryFde) {
  if (!std::filesystem::exists(DCPI_ALPHA_LIBC)) GTEST_SKIP() << "no " << DCPI_ALPHA_LIBC;
  std::string problem;
  const std::unique_ptr<CfiTable> table = CfiTable::open(DCPI_ALPHA_LIBC, &problem);
  ASSERT_NE(table, nullptr) << problem;
  UnwindRegisters regs;
  regs.set(kAlphaDwarfSp, 0x1000);
  const UnwindStep step = table->step(0x10, regs, [](uint64_t, uint64_t*) { return false; });
  EXPECT_FALSE(step.caller);
  EXPECT_EQ(step.stop, UnwindStop::kNoCfi);
  EXPECT_EQ(CfiTable::open("/nonexistent", &problem), nullptr);
  EXPECT_NE(problem.find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace dcpi
