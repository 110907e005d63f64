#ifndef DCPI_TESTS_NEWLIB_SYSCALLS_H
#define DCPI_TESTS_NEWLIB_SYSCALLS_H
/* Everything written to fds 1 and 2 so far, NUL-terminated. */
const char *stub_output(void);
#endif
