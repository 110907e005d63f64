// The dcpi command line as a user meets it (issue 16 point 9): every option a
// command accepts is in its help, the command list is aligned, --version
// answers, and the option names agree across commands.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "test_support.h"

namespace dcpi {
namespace {

using testing::run_dcpi;

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The option names a command's source hands to ParsedOptions: the string
// literals of `ParsedOptions options(...)` and `OptionSpec spec{...}`,
// `spec.with_value.insert("...")`, and kCalcValueOptions where it is used.
std::set<std::string> options_in_source(const std::string& source, const std::string& shared) {
  std::set<std::string> names;
  const std::regex region(
      R"(ParsedOptions options\(([^;]*)\);|OptionSpec spec\{([^;]*)\};|with_value\.insert\(([^;]*)\);)");
  const std::regex literal(R"RE("([a-z][a-z0-9-]*)")RE");
  auto add_literals = [&](const std::string& text) {
    for (auto it = std::sregex_iterator(text.begin(), text.end(), literal);
         it != std::sregex_iterator(); ++it)
      names.insert((*it)[1]);
  };
  for (auto it = std::sregex_iterator(source.begin(), source.end(), region);
       it != std::sregex_iterator(); ++it)
    add_literals((*it).str());
  if (source.find("kCalcValueOptions") != std::string::npos) add_literals(shared);
  names.erase("arguments");  // a variable name inside the parentheses, not an option
  return names;
}

TEST(CliHelp, EveryOptionACommandAcceptsIsInItsHelp) {
  const std::filesystem::path cli = std::filesystem::path(DCPI_SOURCE_DIR) / "analysis/cli";
  const std::string header = read_text(cli / "report_options.h");
  const std::string shared = header.substr(
      header.find("kCalcValueOptions"),
      header.find(';', header.find("kCalcValueOptions")) - header.find("kCalcValueOptions"));
  size_t commands = 0;
  for (const auto& entry : std::filesystem::directory_iterator(cli)) {
    const std::string file = entry.path().filename().string();
    if (!file.starts_with("command_") || !file.ends_with(".cpp")) continue;
    std::string command = file.substr(8, file.size() - 12);
    std::replace(command.begin(), command.end(), '_', '-');
    const std::set<std::string> options = options_in_source(read_text(entry.path()), shared);
    if (options.empty()) continue;  // db parses its words itself
    ++commands;
    const auto help = run_dcpi({"help", command});
    ASSERT_EQ(help.exit_code, 0) << command << ": " << help.err;
    for (const std::string& option : options)
      EXPECT_NE(help.out.find("--" + option), std::string::npos)
          << "dcpi help " << command << " does not mention --" << option;
  }
  EXPECT_GE(commands, 12u) << "the option tables were not found in the sources";
}

TEST(CliHelp, RunDocumentsEachOptionOnItsOwnLine) {
  // Not only in the synopsis: each option of dcpi run has a line saying what it does.
  const std::string source =
      read_text(std::filesystem::path(DCPI_SOURCE_DIR) / "analysis/cli/command_run.cpp");
  const std::set<std::string> options = options_in_source(source, "");
  ASSERT_GT(options.size(), 25u);
  const std::string help = run_dcpi({"help", "run"}).out;
  for (const std::string& option : options)
    EXPECT_TRUE(std::regex_search(help, std::regex("\n  --" + option + " ")))
        << "no line describing --" << option << " in dcpi help run";
}

TEST(CliHelp, CommandListIsAligned) {
  const auto overview = run_dcpi({"help"});
  ASSERT_EQ(overview.exit_code, 0);
  const std::regex line(R"(\n  ([a-z-]+)( +)(\S))");
  std::set<size_t> summary_columns;
  size_t commands = 0;
  for (auto it = std::sregex_iterator(overview.out.begin(), overview.out.end(), line);
       it != std::sregex_iterator(); ++it, ++commands) {
    EXPECT_GE((*it)[2].length(), 2) << "'" << (*it)[1] << "' runs into its summary";
    summary_columns.insert((*it)[1].length() + (*it)[2].length());
  }
  EXPECT_GE(commands, 14u) << overview.out;
  EXPECT_EQ(summary_columns.size(), 1u) << overview.out;
  EXPECT_NE(overview.out.find("  bench-calc  benchmark"), std::string::npos) << overview.out;
}

TEST(CliHelp, VersionNamesTheProject) {
  const auto version = run_dcpi({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(std::regex_match(version.out, std::regex(R"(dcpi \d+\.\d+\.\d+( \(git \S+\))?\n)")))
      << version.out;
}

TEST(CliHelp, TheEpochOptionIsSpelledTheSameEverywhere) {
  // Every command that selects epochs takes --epoch (stats and diff also
  // --epochs, which compares them); a database is --db, or db's DIR.
  for (const char* command :
       {"prof", "list", "export", "values", "calc", "score", "stats", "diff", "run"}) {
    const auto help = run_dcpi({"help", command});
    EXPECT_NE(help.out.find("--epoch"), std::string::npos) << command;
    EXPECT_NE(help.out.find("--db"), std::string::npos) << command;
  }
  const auto show = run_dcpi({"db", "show", "--db", "/nonexistent-db"});
  EXPECT_EQ(show.exit_code, 1) << "--db is accepted by dcpi db too: " << show.err;
}

}  // namespace
}  // namespace dcpi
