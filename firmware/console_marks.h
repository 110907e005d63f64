/* The guest console carries a program's standard output, its standard error
 * and the system's messages (the kernel's, init's) on one serial line, and
 * `dcpi run` splits its echo (analysis/cli/console_echo.h): a program's
 * stdout to dcpi's stdout, its stderr to dcpi's stderr, as `perf record`'s
 * child's would go. Two kinds of mark, sent by the kernel only
 * (kernel/console.cpp), never a program's bytes:
 *  - a stream mark before bytes of the other stream than the last ones
 *    (descriptor 2's console description writes to stderr, the others to
 *    stdout; a `2>&1` dup shares stdout's);
 *  - a line break before a system message that follows a program's
 *    unfinished line (output without a final newline), which would join it:
 *    the echo ends the program's piece there without adding a newline.
 * Each is an ASCII record separator and one more byte: text has none. */
#ifndef DCPI_FIRMWARE_CONSOLE_MARKS_H
#define DCPI_FIRMWARE_CONSOLE_MARKS_H

#define DCPI_CONSOLE_LINE_BREAK "\x1e\x1e"
#define DCPI_CONSOLE_TO_STDOUT "\x1e\x01"
#define DCPI_CONSOLE_TO_STDERR "\x1e\x02"
#define DCPI_CONSOLE_MARK_LENGTH 2

#endif
