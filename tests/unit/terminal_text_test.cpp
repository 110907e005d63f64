// Text reports escape control characters (issue 30): a hostile name in the
// profile (an image path from the guest's load map, a symbol from the
// program) must not reach the terminal as ESC or BEL. The HTML report has
// its own test (html_report_test.cpp, HtmlText).
#include "analysis/reports/terminal_text.h"

#include <gtest/gtest.h>

#include <sstream>

#include "profiledb/profile_db_writer.h"
#include "test_support.h"

namespace dcpi {
namespace {

TEST(TerminalText, ControlCharactersAreShownEscaped) {
  EXPECT_EQ(terminal_safe("a\x1b[31mb\x07\tc\n"), "a\\x1b[31mb\\x07\tc\n");
  EXPECT_EQ(terminal_safe("del\x7f"), "del\\x7f");
  EXPECT_EQ(terminal_safe("c1 \xc2\x9b"
                          "2J"),
            "c1 \\xc2\\x9b2J");                                              // CSI as UTF-8
  EXPECT_EQ(terminal_safe("caf\xc3\xa9 \xc2\xa0"), "caf\xc3\xa9 \xc2\xa0");  // UTF-8 kept
}

TEST(TerminalText, TheStreamFilterEscapesWhatItsStreamReceives) {
  std::ostringstream out;
  {
    TerminalSafeOutput safe(out);
    out << "x\x1b]0;title\x07" << 42 << '\xc2';
    out << '\x9b' << "\xc2"
        << "A\n";
  }
  EXPECT_EQ(out.str(),
            "x\\x1b]0;title\\x0742\\xc2\\x9b\xc2"
            "A\n");
  out << "\x1b";  // restored: nothing is escaped any more
  EXPECT_EQ(out.str().back(), '\x1b');
}

TEST(TerminalText, ProfPrintsAHostileImageNameEscaped) {
  testing::TempDir dir;
  const std::string db = dir.file("hostile.db");
  {
    ProfileDatabaseWriter writer(db);
    ImageIdentity image;
    image.build_id = "0123";
    image.path = "/bin/\x1b[2J\x1b]0;owned\x07evil";
    image.image_size = 0x1000;
    writer.merge_profile(1, image, 0, {{7, 0, 0x120000000, 40}});
    EpochMetadata metadata;
    metadata.epoch = 1;
    metadata.samples = 40;
    writer.merge_epoch_metadata(metadata);
  }
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"prof", "--db", db, "--by", "image"},
        std::vector<std::string>{"db", "show", db}}) {
    const auto shown = testing::run_dcpi(command);
    EXPECT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_EQ(shown.out.find('\x1b'), std::string::npos) << command[0] << ": " << shown.out;
    EXPECT_EQ(shown.out.find('\x07'), std::string::npos) << command[0] << ": " << shown.out;
    EXPECT_NE(shown.out.find("\\x1b[2J"), std::string::npos) << command[0] << ": " << shown.out;
  }
}

}  // namespace
}  // namespace dcpi
