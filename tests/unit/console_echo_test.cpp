// dcpi run's echo of the guest console (issue 30 item 16): the program's
// stdout lines to stdout, its stderr lines to stderr, the kernel's, init's and QEMU's to stderr
// (none under
// --quiet), QEMU's "terminating on signal" not at all.
#include "analysis/cli/console_echo.h"

#include <gtest/gtest.h>

#include <sstream>

#include "firmware/console_marks.h"

namespace dcpi {
namespace {

TEST(ConsoleEcho, LinesAreTheProgramsUnlessTheSystemSaidThem) {
  EXPECT_EQ(classify_console_line("checksum copy 0xcb24511ba819bfb9"), ConsoleLineKind::kProgram);
  EXPECT_EQ(classify_console_line("hello from the program\r"), ConsoleLineKind::kProgram);
  EXPECT_EQ(classify_console_line("dcpi-kernel: profiler sampling on every CPU"),
            ConsoleLineKind::kSystem);
  EXPECT_EQ(classify_console_line("init: copy pid 2 exit 0"), ConsoleLineKind::kSystem);
  EXPECT_EQ(classify_console_line("DCPI-DONE\r"), ConsoleLineKind::kSystem);
  EXPECT_EQ(classify_console_line("panic: out of pages"), ConsoleLineKind::kSystem);
  EXPECT_EQ(classify_console_line("qemu-system-alpha: terminating on signal 15 from pid 42 (dcpi)"),
            ConsoleLineKind::kDropped);
}

TEST(ConsoleEcho, SplitsPiecesIntoLinesAndStreams) {
  std::ostringstream program, error, system;
  {
    ConsoleSplitter splitter(program, error, &system);
    std::ostream console(&splitter);
    // The console arrives in arbitrary pieces, with the UART's \r\n.
    console << "dcpi-kernel: 1 CPUs online\r\nchecksum co";
    console << "py 0x1\r\ninit: copy pid 2 exit 0\r\n";
    console << "qemu-system-alpha: terminating on signal 15 from pid 9\nlast words";
  }
  EXPECT_EQ(program.str(), "checksum copy 0x1\nlast words");
  EXPECT_EQ(system.str(), "dcpi-kernel: 1 CPUs online\ninit: copy pid 2 exit 0\n");
}

// A program's output without a final newline, then init's verdict: the
// kernel's line-break mark ends the program's piece (no newline added), so
// the verdict neither joins it nor goes to stdout; the program's later
// bytes continue its line.
TEST(ConsoleEcho, TheLineBreakMarkEndsAProgramsUnfinishedLine) {
  std::ostringstream program, error, system;
  {
    ConsoleSplitter splitter(program, error, &system);
    std::ostream console(&splitter);
    console << "first\r\nunfinished" DCPI_CONSOLE_LINE_BREAK "init: /bin/p pid 3 exit 0\r\n";
    console << "more\r\n";
  }
  EXPECT_EQ(program.str(), "first\nunfinishedmore\n");
  EXPECT_EQ(system.str(), "init: /bin/p pid 3 exit 0\n");
}

// The kernel's stream marks: bytes after one are the program's stderr (or
// stdout again), each stream's unfinished line waits for its own end, and a
// line break or system message on one stream leaves the other's alone.
TEST(ConsoleEcho, StreamMarksSendStderrApartAndKeepEachStreamsLine) {
  std::ostringstream program, error, system;
  {
    ConsoleSplitter splitter(program, error, &system);
    std::ostream console(&splitter);
    console << "out 1\r\nout 2 begins" DCPI_CONSOLE_TO_STDERR "err 1\r\nerr 2 be";
    console << "gins" DCPI_CONSOLE_TO_STDOUT " and ends\r\n" DCPI_CONSOLE_TO_STDERR;
    console << DCPI_CONSOLE_LINE_BREAK "init: /bin/p pid 3 exit 1\r\n" DCPI_CONSOLE_TO_STDOUT
                                       "last";
  }
  EXPECT_EQ(program.str(), "out 1\nout 2 begins and ends\nlast");
  EXPECT_EQ(error.str(), "err 1\nerr 2 begins");
  EXPECT_EQ(system.str(), "init: /bin/p pid 3 exit 1\n");
}

TEST(ConsoleEcho, QuietDropsTheSystemsLinesNotTheProgramsOutput) {
  std::ostringstream program, error;
  ConsoleSplitter splitter(program, error, nullptr);
  std::ostream console(&splitter);
  console << "dcpi-kernel: init ran 5 cycles\r\nresult 42\r\n" DCPI_CONSOLE_TO_STDERR "oops\r\n";
  EXPECT_EQ(program.str(), "result 42\n");
  EXPECT_EQ(error.str(), "oops\n");
}

}  // namespace
}  // namespace dcpi
