// Text reports go to a terminal: a symbol, a path or a source file name is
// the profiled program's, and an ESC or BEL byte in one would reach the
// terminal as a command (issue 30). Every text report is written through
// TerminalSafeOutput, which shows control characters as \xHH (newline and
// tab excepted, and UTF-8 C1 controls too); JSON escapes its own strings,
// HTML its own markup.
#pragma once
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace dcpi {

// `text` with every control character (C0 but newline and tab, DEL, C1 as
// UTF-8) written as \xHH, one escape per byte.
std::string terminal_safe(std::string_view text);

// While it lives, what `out` receives is escaped as terminal_safe does.
class TerminalSafeOutput {
 public:
  explicit TerminalSafeOutput(std::ostream& out);
  ~TerminalSafeOutput();
  TerminalSafeOutput(const TerminalSafeOutput&) = delete;
  TerminalSafeOutput& operator=(const TerminalSafeOutput&) = delete;

 private:
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(std::streambuf* target) : target_(target) {}
    void finish();  // writes a lead byte still waiting for its pair

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* text, std::streamsize count) override;
    int sync() override;

   private:
    void put(unsigned char byte);
    std::streambuf* target_;
    bool pending_c2_ = false;  // a 0xc2 byte: the next one may make it a C1 control
  };

  std::ostream& out_;
  std::streambuf* original_;
  Buffer buffer_;
};

}  // namespace dcpi
