#include "analysis/cli/console_echo.h"

#include <array>
#include <string_view>

#include "firmware/console_line_break.h"

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
      out = &program_;
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

std::streamsize ConsoleSplitter::xsputn(const char* text, std::streamsize count) {
  static constexpr std::string_view kBreak(DCPI_CONSOLE_LINE_BREAK, DCPI_CONSOLE_LINE_BREAK_LENGTH);
  for (std::streamsize i = 0; i < count; ++i) {
    if (text[i] == '\n') {
      emit(partial_, true);
      partial_.clear();
      continue;
    }
    partial_ += text[i];
    if (std::string_view(partial_).ends_with(kBreak)) {  // a program's unfinished line ends
      partial_.resize(partial_.size() - kBreak.size());
      emit(partial_, false);
      partial_.clear();
    }
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
  if (partial_.empty()) return;
  emit(partial_, false);
  partial_.clear();
}

}  // namespace dcpi
