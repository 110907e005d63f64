/* errno handling around firmware/callsys.h's callsys (internal to the
   runtime). The numbers, flags and structures of the system calls are
   firmware/syscalls.h's. */
#ifndef DCPI_RUNTIME_LINUX_ALPHA_H
#define DCPI_RUNTIME_LINUX_ALPHA_H

#include "firmware/callsys.h"

/* Converts a Linux/Alpha errno to newlib's numbering. */
int dcpi_errno_from_linux(long linux_errno);

/* Sets errno (newlib numbering) for newlib's wrappers and for user code. */
void dcpi_set_errno(int e);

/* Performs a system call; on error sets errno (newlib numbering) and
   returns -1, else returns the result. */
long dcpi_syscall(long nr, long a0, long a1, long a2, long a3);

#endif
