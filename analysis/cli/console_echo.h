// The echo of the guest console during `dcpi run`, split as `perf record`
// splits a profiled program's output from its own (issue 30 item 16): the
// program's stdout lines go to stdout, so `dcpi run -- prog > out` captures
// exactly what it printed there, its stderr lines to stderr; the kernel's
// and init's messages (and QEMU's own) go to stderr with dcpi's, and --quiet
// hides those but never the program's. QEMU's "terminating on signal N"
// (dcpi stopping it) is nobody's news and dropped.
//
// The console carries all on one serial line: the kernel's stream marks
// say which of the program's streams the bytes after them are, and within
// a stream a line is the system's when it starts with one of its prefixes.
// A program's unfinished line before a system message ends at the kernel's
// line-break mark, with no newline added (firmware/console_marks.h). Only
// the echo is split; what the run reads from the console is not touched.
#pragma once
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace dcpi {

enum class ConsoleLineKind { kProgram, kSystem, kDropped };

// Whose a complete console line (without its '\n') is.
ConsoleLineKind classify_console_line(std::string_view line);

// A stream buffer that collects the console into lines, each of the
// program's streams apart, and sends each line to `output` or `error` (its
// stream) or `system` (nullptr: not shown) by classify_console_line. A
// partial line waits for its end, or for flush_partial().
class ConsoleSplitter : public std::streambuf {
 public:
  ConsoleSplitter(std::ostream& output, std::ostream& error, std::ostream* system)
      : program_{&output, &error}, system_(system) {}
  ~ConsoleSplitter() override { flush_partial(); }
  // Writes out the lines the guest left unfinished (the run is over).
  void flush_partial();

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* text, std::streamsize count) override;

 private:
  void emit(std::string line, bool newline);
  // Takes the mark `partial` ends with, if any (firmware/console_marks.h).
  void take_mark(std::string& partial);

  std::ostream* program_[2];  // stdout's, stderr's
  std::ostream* system_;
  int stream_ = 0;          // the program's stream the bytes are (index of program_)
  std::string partial_[2];  // each stream's unfinished line
};

}  // namespace dcpi
