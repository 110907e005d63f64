// Procedure selection shared by list, calc, values and score
// (symbols/procedure_match.h, issue 16 point 4).
#include "symbols/procedure_match.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dcpi {
namespace {

// What the guest images really hold: a GCC clone and its cold part, C++
// kernel functions, plain C names.
const std::vector<std::string> kSymbols = {
    "main",
    "copy_loop.constprop.0",
    "copy_loop.constprop.0.cold",
    "_ZN6kernel3sys8dispatchEm",    // kernel::sys::dispatch(unsigned long)
    "_ZN6kernel5pages8allocateEm",  // kernel::pages::allocate(unsigned long)
    "_ZN6kernel5pages7releaseEmm",  // kernel::pages::release(unsigned long, unsigned long)
    "checksum.isra.0",
    "checksum_words.part.0",
};

std::vector<std::string> matched(std::string_view query) {
  std::vector<std::string> names;
  for (size_t i : match_procedures(kSymbols, query)) names.push_back(kSymbols[i]);
  return names;
}

TEST(ProcedureMatch, BaseNameDropsParametersAndCloneSuffixes) {
  EXPECT_EQ(procedure_base_name("copy_loop.constprop.0"), "copy_loop");
  EXPECT_EQ(procedure_base_name("copy_loop.constprop.0.cold"), "copy_loop");
  EXPECT_EQ(procedure_base_name("f.part.0.isra.3"), "f");
  EXPECT_EQ(procedure_base_name("_ZN6kernel3sys8dispatchEm"), "kernel::sys::dispatch");
  EXPECT_EQ(procedure_base_name("release.cold_path"), "release.cold_path");  // not a suffix
  EXPECT_EQ(procedure_base_name("x.42"), "x.42");
}

TEST(ProcedureMatch, ExactSymbolAndDemangledName) {
  EXPECT_EQ(matched("main"), std::vector<std::string>{"main"});
  EXPECT_EQ(matched("_ZN6kernel3sys8dispatchEm"),
            std::vector<std::string>{"_ZN6kernel3sys8dispatchEm"});
  EXPECT_EQ(matched("kernel::sys::dispatch(unsigned long)"),
            std::vector<std::string>{"_ZN6kernel3sys8dispatchEm"});
  // The exact clone name wins over the rule that strips suffixes.
  EXPECT_EQ(matched("copy_loop.constprop.0"), std::vector<std::string>{"copy_loop.constprop.0"});
}

TEST(ProcedureMatch, WithoutParametersAndWithoutCloneSuffixes) {
  EXPECT_EQ(matched("kernel::sys::dispatch"),
            std::vector<std::string>{"_ZN6kernel3sys8dispatchEm"});
  // copy_loop is the clone, not its cold part.
  EXPECT_EQ(matched("copy_loop"), std::vector<std::string>{"copy_loop.constprop.0"});
  EXPECT_EQ(matched("checksum"), std::vector<std::string>{"checksum.isra.0"});
  EXPECT_EQ(matched("checksum_words"), std::vector<std::string>{"checksum_words.part.0"});
}

TEST(ProcedureMatch, Glob) {
  EXPECT_EQ(matched("kernel::pages::*").size(), 2u);
  EXPECT_EQ(matched("checksum_w*"), std::vector<std::string>{"checksum_words.part.0"});
  EXPECT_EQ(matched("*dispatch*"), std::vector<std::string>{"_ZN6kernel3sys8dispatchEm"});
  EXPECT_TRUE(matched("nothing*").empty());
}

TEST(ProcedureMatch, NoMatchListsTheClosestFirst) {
  try {
    select_procedure(kSymbols, "copy_lop", "/bin/copy");
    FAIL() << "copy_lop matched";
  } catch (const ProcedureMatchError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.substr(0, message.find('\n')),
              "no procedure matches 'copy_lop' in /bin/copy; the closest are:");
    // copy_loop.* (distance 1) before checksum (farther), main last-ish.
    EXPECT_LT(message.find("copy_loop.constprop.0"), message.find("checksum"));
    EXPECT_NE(message.find("kernel::sys::dispatch(unsigned long)  (_ZN6kernel3sys8dispatchEm)"),
              std::string::npos)
        << message;
  }
}

TEST(ProcedureMatch, SeveralMatchesAreListedAndRefused) {
  try {
    select_procedure(kSymbols, "kernel::pages::*", "kernel.elf");
    FAIL() << "an ambiguous glob selected one procedure";
  } catch (const ProcedureMatchError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.substr(0, message.find('\n')),
              "2 procedures match 'kernel::pages::*' in kernel.elf; name one of them:");
    EXPECT_NE(message.find("kernel::pages::allocate(unsigned long)"), std::string::npos);
    EXPECT_NE(message.find("kernel::pages::release(unsigned long, unsigned long)"),
              std::string::npos);
    EXPECT_EQ(message.find("main"), std::string::npos);
  }
  EXPECT_EQ(kSymbols[select_procedure(kSymbols, "kernel::pages::a*", "kernel.elf")],
            "_ZN6kernel5pages8allocateEm");
}

TEST(ProcedureMatch, ClosestOrderIsByEditDistance) {
  const std::vector<std::string> names = {"zzzzzz", "matmul", "matmux", "mat"};
  const std::vector<size_t> closest = closest_procedures(names, "matmul_", 3);
  ASSERT_EQ(closest.size(), 3u);
  EXPECT_EQ(names[closest[0]], "matmul");
  EXPECT_EQ(names[closest[1]], "matmux");
  EXPECT_EQ(names[closest[2]], "mat");
}

}  // namespace
}  // namespace dcpi
