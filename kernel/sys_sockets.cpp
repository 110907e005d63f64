// Sockets: this kernel has no network stack and no UNIX-domain sockets, so
// socket and socketpair fail as Linux does for an address family it was
// built without (EAFNOSUPPORT). glibc's name services try a socket to nscd
// first and go on to the files (/etc/passwd) when there is none.
#include "kernel/linux_errno.h"
#include "kernel/syscall_handlers.h"

namespace kernel::sys {

int64_t sys_socket(Process*, TrapFrame*, const Args&) { return error(EAFNOSUPPORT); }
int64_t sys_socketpair(Process*, TrapFrame*, const Args&) { return error(EAFNOSUPPORT); }

}  // namespace kernel::sys
