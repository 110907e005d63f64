// Linux errno values (the user ABI: a3 = 1, v0 = errno).
#pragma once

namespace kernel {

inline constexpr int EPERM = 1;
inline constexpr int ENOENT = 2;
inline constexpr int ESRCH = 3;
inline constexpr int EINTR = 4;
inline constexpr int EIO = 5;
inline constexpr int ENXIO = 6;
inline constexpr int E2BIG = 7;
inline constexpr int ENOEXEC = 8;
inline constexpr int EBADF = 9;
inline constexpr int ECHILD = 10;
inline constexpr int EAGAIN = 35;  // Linux/Alpha value (OSF numbering)
inline constexpr int ENOMEM = 12;
inline constexpr int EACCES = 13;
inline constexpr int EFAULT = 14;
inline constexpr int EISDIR = 21;
inline constexpr int EINVAL = 22;
inline constexpr int ENFILE = 23;
inline constexpr int EMFILE = 24;
inline constexpr int ESPIPE = 29;
inline constexpr int EROFS = 30;
inline constexpr int ENAMETOOLONG = 63;  // Linux/Alpha value (OSF numbering)
inline constexpr int ELOOP = 62;         // Linux/Alpha value (OSF numbering)
inline constexpr int ENOSYS = 78;        // Linux/Alpha value (OSF numbering)
inline constexpr int EOPNOTSUPP = 45;    // Linux/Alpha value (OSF numbering)
inline constexpr int ETIMEDOUT = 60;     // Linux/Alpha value (OSF numbering)
inline constexpr int EBUSY = 16;
inline constexpr int EEXIST = 17;
inline constexpr int EXDEV = 18;
inline constexpr int ENOTDIR = 20;
inline constexpr int ENOTTY = 25;
inline constexpr int ENOSPC = 28;
inline constexpr int EPIPE = 32;
inline constexpr int ERANGE = 34;
inline constexpr int ENOLCK = 77;        // Linux/Alpha value (OSF numbering)
inline constexpr int ENOTEMPTY = 66;     // Linux/Alpha value (OSF numbering)
inline constexpr int EAFNOSUPPORT = 47;  // Linux/Alpha value (OSF numbering)
inline constexpr int EOVERFLOW = 112;    // Linux/Alpha value (asm/errno.h)
// Sockets' (Linux/Alpha values, OSF numbering).
inline constexpr int EINPROGRESS = 36;
inline constexpr int ENOTSOCK = 38;
inline constexpr int ENOPROTOOPT = 42;
inline constexpr int EPROTONOSUPPORT = 43;
inline constexpr int ESOCKTNOSUPPORT = 44;
inline constexpr int EADDRINUSE = 48;
inline constexpr int EADDRNOTAVAIL = 49;
inline constexpr int ENETUNREACH = 51;
inline constexpr int EISCONN = 56;
inline constexpr int ENOTCONN = 57;
inline constexpr int ECONNREFUSED = 61;

}  // namespace kernel
