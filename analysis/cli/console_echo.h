// The echo of the guest console during `dcpi run`, split as `perf record`
// splits a profiled program's output from its own (issue 30 item 16): the
// program's lines go to stdout, so `dcpi run -- prog > out` captures exactly
// what it printed; the kernel's and init's messages (and QEMU's own) go to
// stderr with dcpi's, and --quiet hides those but never the program's. QEMU's
// "terminating on signal N" (dcpi stopping it) is nobody's news and dropped.
//
// The console carries both on one serial line, so the split is by line: a
// line is the system's when it starts with one of its prefixes. A program's
// unfinished line before a system message ends at the kernel's line-break
// mark (firmware/console_line_break.h), with no newline added. Only the
// echo is split; what the run reads from the console is not touched.
#pragma once
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace dcpi {

enum class ConsoleLineKind { kProgram, kSystem, kDropped };

// Whose a complete console line (without its '\n') is.
ConsoleLineKind classify_console_line(std::string_view line);

// A stream buffer that collects the console into lines and sends each to
// `program` or `system` (nullptr: not shown) by classify_console_line. A
// partial line waits for its end, or for flush_partial().
class ConsoleSplitter : public std::streambuf {
 public:
  ConsoleSplitter(std::ostream& program, std::ostream* system)
      : program_(program), system_(system) {}
  ~ConsoleSplitter() override { flush_partial(); }
  // Writes out a line the guest left unfinished (the run is over).
  void flush_partial();

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* text, std::streamsize count) override;

 private:
  void emit(std::string line, bool newline);

  std::ostream& program_;
  std::ostream* system_;
  std::string partial_;
};

}  // namespace dcpi
