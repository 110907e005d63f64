// What a bundled program finds of a login (issue 15's `dcpi run -- PROGRAM`):
// the environment init gives it (/etc/environment, workloads/init.c) and the
// user database getpwuid and getgrgid read. The guest runs everything as
// root in "/", so a shell's login variables say that; `dcpi run --env`
// adds or replaces variables, as `env NAME=VALUE` would.
#pragma once
#include <string>
#include <vector>

namespace dcpi::qemu {

// The most variables init passes (workloads/init.c MAX_ENV), the bytes of
// one NAME=VALUE line it reads and of all of them (each with its NUL).
inline constexpr size_t kMaxEnvironmentVariables = 63;
inline constexpr size_t kMaxEnvironmentLineBytes = 1022;
inline constexpr size_t kMaxEnvironmentBytes = 8192;

// /etc/environment: PATH, HOME, PWD, SHELL, USER, LOGNAME, LANG and TERM as a
// root login in "/" would have them, each NAME=VALUE of `settings` replacing
// its name's or added, in order. Throws std::runtime_error with one line for
// a setting that is not NAME=VALUE (a name of letters, digits and '_' not
// starting with a digit), holds a control character, or is too long, and
// for too many or too much.
std::string environment_file(const std::vector<std::string>& settings);

// /etc/passwd and /etc/group: root (0) and nobody (65534), as a minimal
// Debian system has them.
std::string passwd_file();
std::string group_file();

}  // namespace dcpi::qemu
