/* The guest console carries a program's output and the system's messages
 * (the kernel's, init's) on one serial line, and `dcpi run` splits its echo
 * by line (analysis/cli/console_echo.h): a system message that follows a
 * program's unfinished line (output without a final newline) would join
 * it. Before such a message the kernel sends this mark, never its own
 * bytes' (kernel/console.cpp), and the echo ends the program's piece there
 * without adding a newline. Two ASCII record separators: text has none. */
#ifndef DCPI_FIRMWARE_CONSOLE_LINE_BREAK_H
#define DCPI_FIRMWARE_CONSOLE_LINE_BREAK_H

#define DCPI_CONSOLE_LINE_BREAK "\x1e\x1e"
#define DCPI_CONSOLE_LINE_BREAK_LENGTH 2

#endif
