#include "analysis/cli/console_echo.h"

#include <array>
#include <string_view>

#include "firmware/console_marks.h"

namespace dcpi {

ConsoleLineKind classify_console_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // QEMU announcing the SIGTERM dcpi sent it when the run was over.
  if (line.starts_with("qemu-system-alpha") && line.find("terminating on signal") != line.npos)
    return ConsoleLineKind::kDropped;
  // What the kernel (kernel/, "panic: " its panic), init (workloads/init.c)
  // and QEMU print: the run's messages, not the program's output.
  static constexpr std::array kSystemPrefixes = {
      std::string_view("dcpi-kernel:"), std::string_view("init:"),
      std::string_view("panic:"),       std::string_view("DCPI-READY"),
      std::string_view("DCPI-DONE"),    std::string_view("qemu-system-alpha")};
  for (std::string_view prefix : kSystemPrefixes)
    if (line.starts_with(prefix)) return ConsoleLineKind::kSystem;
  return ConsoleLineKind::kProgram;
}

void ConsoleSplitter::emit(std::string line, bool newline) {
  if (!line.empty() && line.back() == '\r') line.pop_back();  // the UART's, not the program's
  std::ostream* out = nullptr;
  switch (classify_console_line(line)) {
    case ConsoleLineKind::kProgram:
      out = program_[stream_];
      break;
    case ConsoleLineKind::kSystem:
      out = system_;
      break;
    case ConsoleLineKind::kDropped:
      break;
  }
  if (!out) return;
  *out << line;
  if (newline) *out << '\n';
  out->flush();  // live, line by line, as the program prints
}

void ConsoleSplitter::take_mark(std::string& partial) {
  static constexpr std::string_view kBreak(DCPI_CONSOLE_LINE_BREAK, DCPI_CONSOLE_MARK_LENGTH);
  static constexpr std::string_view kToStdout(DCPI_CONSOLE_TO_STDOUT, DCPI_CONSOLE_MARK_LENGTH);
  static constexpr std::string_view kToStderr(DCPI_CONSOLE_TO_STDERR, DCPI_CONSOLE_MARK_LENGTH);
  if (partial.size() < DCPI_CONSOLE_MARK_LENGTH) return;
  const std::string_view mark =
      std::string_view(partial).substr(partial.size() - DCPI_CONSOLE_MARK_LENGTH);
  const bool line_break = mark == kBreak, to_stdout = mark == kToStdout,
             to_stderr = mark == kToStderr;  // before the resize moves the text under `mark`
  if (!line_break && !to_stdout && !to_stderr) return;
  partial.resize(partial.size() - DCPI_CONSOLE_MARK_LENGTH);
  if (line_break) {  // a program's unfinished line ends
    emit(partial, false);
    partial.clear();
  } else {  // the other stream's bytes follow; this one's line waits for its end
    stream_ = to_stderr ? 1 : 0;
  }
}

std::streamsize ConsoleSplitter::xsputn(const char* text, std::streamsize count) {
  for (std::streamsize i = 0; i < count; ++i) {
    std::string& partial = partial_[stream_];
    if (text[i] == '\n') {
      emit(partial, true);
      partial.clear();
      continue;
    }
    partial += text[i];
    take_mark(partial);
  }
  return count;
}

ConsoleSplitter::int_type ConsoleSplitter::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  xsputn(&ch, 1);
  return c;
}

void ConsoleSplitter::flush_partial() {
  const int last = stream_;
  for (stream_ = 0; stream_ < 2; ++stream_) {
    if (partial_[stream_].empty()) continue;
    emit(partial_[stream_], false);
    partial_[stream_].clear();
  }
  stream_ = last;
}

}  // namespace dcpi
