// Kernel console on COM1 (and the host channel, COM3): a small printf,
// serialized across CPUs.
#pragma once
#include <cstdarg>
#include <cstdint>

namespace kernel {

// Supports %d %u %x %s %c %p with optional l/ll and a field width ("%8u").
void kprintf(const char* format, ...) __attribute__((format(printf, 1, 2)));
void kvprintf(const char* format, va_list args);
// kprintf's formats into `text` (at most capacity - 1 characters and a NUL,
// as snprintf); the length the whole text has.
uint64_t kformat(char* text, uint64_t capacity, const char* format, ...)
    __attribute__((format(printf, 3, 4)));
uint64_t kvformat(char* text, uint64_t capacity, const char* format, va_list args);
// A console description's stream (OpenFile::console_stream): descriptor
// 2's is stderr, the others' stdout; `dcpi run` echoes each to its own.
enum class ConsoleStream : uint8_t { kOutput = 1, kError = 2 };
// Raw bytes (a user write to the console), in one burst, on `stream`.
// Init's (`to_host`) also go to the host channel, as every kprintf does:
// what steers the host (init's verdicts, DCPI-DONE, panic) is there, where
// no other program can write (issue 30); the console is only echoed.
void console_write(const char* text, uint64_t length, bool to_host = false,
                   ConsoleStream stream = ConsoleStream::kOutput);
// Whether a stream stands for a terminal, which isatty() asks (TCGETS):
// the command line's tty=N (bit stream - 1: 1 stdout, 2 stderr), when what the programs print
// there reaches one on the host (`dcpi run` to a terminal). Not otherwise,
// as a Linux program's stdout redirected to a file or a pipe is not:
// glibc's stdio then buffers it fully instead of by line.
void set_console_terminals(uint32_t streams);
bool console_is_terminal(ConsoleStream stream);
[[noreturn]] void panic(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace kernel
