// The HTML report (analysis/html/, `dcpi report --html`): the process helper
// that runs dot, the CFG drawing's back edges and SVG clean-up, and the page
// written by the dcpi binary on the hand-checked database (report_fixture.h):
// procedures, counts, one <svg> per drawn graph, nothing referenced outside
// the file, and pages for an empty database, images without symbols and a
// missing dot. The browser half is tests/html/browser_report.py.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "analysis/calc/model/qemu_icount_model.h"
#include "analysis/html/cfg_graph.h"
#include "analysis/html/html_text.h"
#include "analysis/html/process.h"
#include "calc/copy_loop_fixture.h"
#include "profiledb/profile_db_writer.h"
#include "report_fixture.h"
#include "test_support.h"

namespace dcpi {
namespace {

using testing::run_dcpi;
using testing::TempDir;

size_t count_of(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// src=, href= and url() may only point inside the page (#fragment).
std::vector<std::string> outside_references(const std::string& page) {
  std::vector<std::string> found;
  static const std::regex kReference(R"re((?:src|href)\s*=\s*["']?([^"'\s>]*))re",
                                     std::regex::icase);
  for (auto it = std::sregex_iterator(page.begin(), page.end(), kReference);
       it != std::sregex_iterator(); ++it)
    if ((*it)[1].str().empty() || (*it)[1].str()[0] != '#') found.push_back(it->str());
  if (page.find("url(") != std::string::npos) found.push_back("url(");
  if (page.find("@import") != std::string::npos) found.push_back("@import");
  return found;
}

TEST(HtmlProcess, RunsAProgramWithInputAndCollectsItsOutputs) {
  const std::string input(1 << 20, 'x');  // more than a pipe holds: poll() must interleave
  const html::ProcessOutput cat = html::run_program({"cat"}, input);
  EXPECT_EQ(cat.exit_status, 0);
  EXPECT_EQ(cat.out, input);
  const html::ProcessOutput failing = html::run_program({"sh", "-c", "echo oops >&2; exit 3"}, "");
  EXPECT_EQ(failing.exit_status, 3);
  EXPECT_EQ(failing.err, "oops\n");
  EXPECT_THROW(html::run_program({"/nonexistent/dot", "-Tsvg"}, "digraph {}"),
               html::ProgramNotFound);
}

TEST(HtmlText, EscapesMarkupAndMakesUniqueUrlSafeAnchors) {
  EXPECT_EQ(html::escape("operator<<(a&b, \"c\")"), "operator&lt;&lt;(a&amp;b, &quot;c&quot;)");
  html::AnchorNames names;
  EXPECT_EQ(names.make("kernel.elf", "kernel::pages::allocate(unsigned long)"),
            "kernel.elf--kernel..pages..allocate_unsigned_long_");
  EXPECT_EQ(names.make("copy", "a b"), "copy--a_b");
  EXPECT_EQ(names.make("copy", "a/b"), "copy--a_b-2");
  EXPECT_EQ(html::compact_number(40007706), "40.0M");
  EXPECT_EQ(html::compact_number(591), "591");
  EXPECT_EQ(html::compact_number(0.5), "0.50");
}

TEST(HtmlCfg, BackEdgesAreTheEdgesThatCloseALoop) {
  calc::ControlFlowGraph cfg;
  for (uint64_t i = 0; i < 4; ++i) cfg.add_block({.start = 0x100 + 16 * i, .end = 0x110 + 16 * i});
  const auto entry_to_head = cfg.add_edge(0, 1, calc::EdgeKind::kFallThrough);
  const auto head_to_body = cfg.add_edge(1, 2, calc::EdgeKind::kFallThrough);
  const auto body_to_head = cfg.add_edge(2, 1);  // the loop
  const auto head_to_exit = cfg.add_edge(1, 3);
  const std::vector<bool> back = html::back_edges(cfg);
  ASSERT_EQ(back.size(), 4u);
  EXPECT_TRUE(back[body_to_head]);
  EXPECT_FALSE(back[entry_to_head] || back[head_to_body] || back[head_to_exit]);
}

TEST(HtmlCfg, DotMarksLoopsMissingEdgesAndEstimates) {
  using calc::ControlFlow;
  // 0x100 add; 0x104 add (loop head); 0x108 bne -> 0x104; 0x10c jmp (unresolved)
  const std::vector<calc::InstructionRecord> code = {
      calc::testing::op(0x100, isa::Ev5Class::kIadd, 1, 2, 3),
      calc::testing::op(0x104, isa::Ev5Class::kIadd, 1, 2, 3),
      calc::testing::branch(0x108, ControlFlow::kConditionalBranch, 0x104, 1),
      calc::testing::branch(0x10c, ControlFlow::kIndirectJump, std::nullopt)};
  const calc::ProcedureAnalysis analysis = calc::analyze_procedure(
      calc::build_cfg(code), calc::QemuIcountModel{}, {{0x104, 50}, {0x108, 50}});
  const std::string dot = html::cfg_dot(analysis, 1000, "p");
  EXPECT_NE(dot.find("b1 -> b1 [label=\"loop "), std::string::npos) << dot;
  EXPECT_NE(dot.find("x 50.0K"), std::string::npos) << "100 samples / 2 cycles x period 1000";
  EXPECT_NE(dot.find("class=\"back\""), std::string::npos);
  EXPECT_NE(dot.find("b2 -> missing2"), std::string::npos) << dot;
  EXPECT_NE(dot.find("URL=\"#p-0x104\""), std::string::npos);
  EXPECT_NE(dot.find("fillcolor=\"#f78c2a\""), std::string::npos)
      << "the hottest block, fully shaded";
  const std::string svg = html::svg_from_dot(dot);
  EXPECT_NE(svg.find("class=\"edge back\""), std::string::npos);
  EXPECT_NE(svg.find("missing edges"), std::string::npos);
}

// Seed 002 §2's paths on the CFG: the hottest path's edges and blocks in its
// colour, a legend line per path; an edge on no path keeps its own style.
TEST(HtmlCfg, DotDrawsTheHottestPathsOverTheGraph) {
  using calc::ControlFlow;
  // 0x100 beq -> 0x10c; 0x104 add; 0x108 br -> 0x110; 0x10c add; 0x110 ret
  const std::vector<calc::InstructionRecord> code = {
      calc::testing::branch(0x100, ControlFlow::kConditionalBranch, 0x10c, 1),
      calc::testing::op(0x104, isa::Ev5Class::kIadd, 1, 2, 3),
      calc::testing::branch(0x108, ControlFlow::kUnconditionalBranch, 0x110),
      calc::testing::op(0x10c, isa::Ev5Class::kIadd, 1, 2, 3),
      calc::testing::branch(0x110, ControlFlow::kReturn, std::nullopt)};
  const calc::ProcedureAnalysis analysis =
      calc::analyze_procedure(calc::build_cfg(code), calc::QemuIcountModel{}, {});
  // The path through 0x10c: [0x100, 0x100], then [0x10c, 0x110].
  const html::DrawnPath hot{.number = 1, .runs = 90, .share = 0.9,
                            .blocks = {{0x100, 0x100}, {0x10c, 0x110}}};
  const std::string dot = html::cfg_dot(analysis, 1000, "p", {hot});
  const std::string colour = html::path_colour(0);
  const auto line_of = [&](const std::string& start) {
    const size_t at = dot.find(start);
    return at == std::string::npos ? std::string() : dot.substr(at, dot.find('\n', at) - at);
  };
  EXPECT_NE(line_of("  b0 -> b2 [").find(colour), std::string::npos) << dot;
  EXPECT_NE(line_of("  b2 -> b3 [").find(colour), std::string::npos) << dot;
  EXPECT_EQ(line_of("  b0 -> b1 [").find(colour), std::string::npos) << dot;
  EXPECT_NE(line_of("  b2 [").find("color=\"" + colour), std::string::npos) << dot;
  EXPECT_NE(dot.find("path #1: 90 runs, 90.0 % of the cycles"), std::string::npos) << dot;
  EXPECT_NE(html::svg_from_dot(dot).find("class=\"edge hotpath\""), std::string::npos);
}

TEST(HtmlCfg, SvgFromDotIsABareInlineElement) {
  const std::string svg = html::svg_from_dot("digraph { a -> b [URL=\"#x-0x10\"]; }");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u) << svg.substr(0, 200);
  EXPECT_EQ(svg.find("xmlns"), std::string::npos);
  EXPECT_EQ(svg.find("<?xml"), std::string::npos);
  EXPECT_NE(svg.find("#x-0x10"), std::string::npos);
  EXPECT_THROW(html::svg_from_dot("digraph { a -> }"), std::runtime_error);
  EXPECT_THROW(html::svg_from_dot("digraph {}", "/nonexistent/dot"), html::ProgramNotFound);
}

class HtmlReportCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    images_ = testing::make_image_directory(dir_.file("images"));
    if (images_.empty()) GTEST_SKIP() << "no Alpha cross toolchain for the ELF fixtures";
    db_ = dir_.file("prof.db");
    testing::write_report_database(db_);
  }
  std::string report(std::vector<std::string> extra, testing::CommandResult* result = nullptr) {
    const std::string file = dir_.file("report.html");
    std::vector<std::string> arguments{"report", "--html", file, "--db", db_};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    const testing::CommandResult done = run_dcpi(arguments);
    EXPECT_EQ(done.exit_code, 0) << done.err;
    if (result) *result = done;
    return read_text(file);
  }

  TempDir dir_;
  std::string images_;
  std::string db_;
};

TEST_F(HtmlReportCliTest, OverviewSectionsAndGraphsOfTheFixture) {
  testing::CommandResult done;
  const std::string page = report({"--images", images_}, &done);
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>"));
  EXPECT_NE(page.find("<td class=\"name\" id=\"total-samples\">200</td>"), std::string::npos);
  EXPECT_NE(page.find("id=\"unknown-samples\">2 (1.0%)"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"name\">qemu</td>"), std::string::npos);
  // accumulate: 40 + 50 samples; the bars link to the sections.
  EXPECT_NE(page.find("<a href=\"#dwarf_workload--accumulate\">accumulate</a>"), std::string::npos);
  for (const char* anchor : {"dwarf_workload--accumulate", "kernel--idle_loop",
                             "kernel--kernel_entry", "dwarf_workload--copy_words"})
    EXPECT_NE(page.find("<section class=\"proc\" id=\"" + std::string(anchor) + "\">"),
              std::string::npos)
        << anchor;
  // Each PID with its program, as dcpi prof --by pid names it (issue 30 item 17).
  EXPECT_NE(page.find("PID 8:dwarf_workload"), std::string::npos) << page;
  EXPECT_NE(page.find("PID 0:[kernel]"), std::string::npos);
  EXPECT_NE(page.find("id=\"blindspots\""), std::string::npos);
  // One drawn graph per section that has one, and dcpi says how many.
  const std::smatch m = [&] {
    std::smatch match;
    std::regex_search(done.err, match, std::regex(R"(\((\d+) procedures, (\d+) graphs\))"));
    return match;
  }();
  ASSERT_EQ(m.size(), 3u) << done.err;
  EXPECT_EQ(std::stoul(m[1]), count_of(page, "<section class=\"proc\""));
  EXPECT_GT(std::stoul(m[2]), 0u);
  EXPECT_EQ(std::stoul(m[2]), count_of(page, "<svg"));
  EXPECT_EQ(outside_references(page), std::vector<std::string>{});
}

// Issue 14: the machine comes from the database, and calc's model follows it.
TEST_F(HtmlReportCliTest, TheMachineIsTheDatabasesAndPicksTheModel) {
  const std::string ev5 = dir_.file("ev5.db");
  {
    ProfileDatabaseWriter writer(ev5);
    writer.merge_profile(1, testing::workload_identity(), 0, {{7, 0, testing::kAccumulate, 40}});
    EpochMetadata meta{.epoch = 1, .samples = 40};
    meta.machine = "ev5";
    writer.merge_epoch_metadata(meta);
  }
  db_ = ev5;
  std::string page = report({"--images", images_});
  EXPECT_NE(page.find("<td class=\"name\">ev5</td>"), std::string::npos);
  EXPECT_NE(page.find("; model ev5</p>"), std::string::npos);
  page = report({"--images", images_, "--model", "qemu"});
  EXPECT_NE(page.find("; model qemu</p>"), std::string::npos);
  ASSERT_EQ(run_dcpi({"db", "merge", dir_.file("both.db"), dir_.file("prof.db"), ev5}).exit_code,
            0);
  db_ = dir_.file("both.db");
  page = report({"--images", images_});
  EXPECT_NE(page.find("<td class=\"name\">mixed: ev5, qemu</td>"), std::string::npos);
}

TEST_F(HtmlReportCliTest, TopLimitsTheSectionsAndFiltersApply) {
  const std::string page = report({"--images", images_, "--top", "1", "--epoch", "2"});
  EXPECT_EQ(count_of(page, "<section class=\"proc\""), 1u);
  EXPECT_NE(page.find("id=\"total-samples\">100<"), std::string::npos);
}

TEST_F(HtmlReportCliTest, WithoutImagesThePageSaysThereIsNoListing) {
  const std::string page = report({});
  EXPECT_NE(page.find("No listing"), std::string::npos);
  EXPECT_EQ(count_of(page, "<svg"), 0u);
  EXPECT_EQ(outside_references(page), std::vector<std::string>{});
}

TEST_F(HtmlReportCliTest, AMissingDotGivesAPageWithoutGraphsThatSaysSo) {
  testing::CommandResult done;
  const std::string page = report({"--images", images_, "--dot", "/nonexistent/dot"}, &done);
  EXPECT_NE(page.find("id=\"no-graphs\""), std::string::npos);
  EXPECT_NE(page.find("install Graphviz"), std::string::npos);
  EXPECT_EQ(count_of(page, "<svg"), 0u);
  EXPECT_NE(page.find("<section class=\"proc\""), std::string::npos);
  EXPECT_NE(done.err.find("/nonexistent/dot"), std::string::npos) << done.err;
}

TEST_F(HtmlReportCliTest, AnEmptyDatabaseGivesAPageThatSaysSo) {
  const std::string empty = dir_.file("empty.db");
  { ProfileDatabaseWriter writer(empty); }
  const std::string file = dir_.file("empty.html");
  const auto done = run_dcpi({"report", "--html", file, "--db", empty});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  const std::string page = read_text(file);
  EXPECT_NE(page.find("id=\"no-samples\""), std::string::npos);
  EXPECT_NE(page.find("</html>"), std::string::npos);
}

TEST_F(HtmlReportCliTest, BadInputIsAOneLineError) {
  auto done = run_dcpi({"report", "--db", db_});
  EXPECT_EQ(done.exit_code, 2);
  EXPECT_NE(done.err.find("--html"), std::string::npos) << done.err;
  done = run_dcpi({"report", "--html", dir_.file("x.html"), "--db", db_, "--top", "ten"});
  EXPECT_EQ(done.exit_code, 2);
  done = run_dcpi({"report", "--html", dir_.file("x.html"), "--db", dir_.file("missing")});
  EXPECT_EQ(done.exit_code, 1);
  done = run_dcpi({"report", "--html", dir_.file("no/such/dir/x.html"), "--db", db_});
  EXPECT_EQ(done.exit_code, 1);
  EXPECT_NE(done.err.find("cannot write"), std::string::npos) << done.err;
}

}  // namespace
}  // namespace dcpi
