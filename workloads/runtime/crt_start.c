/* The C half of program start-up (crt0.S calls _dcpi_cstart). */
#include <stdlib.h>

extern int main(int argc, char **argv, char **envp);
extern void __libc_init_array(void);
extern void __libc_fini_array(void);
extern char **environ;

/* newlib is built with HAVE_INIT_FINI: __libc_init_array calls _init and
   __libc_fini_array calls _fini (normally from crti.o, which we lack). */
void _init(void) {}
void _fini(void) {}

/* Argument vector and program name for tools and error messages. */
const char *dcpi_program_name = "";

void _dcpi_cstart(long argc, char **argv, char **envp) __attribute__((noreturn, used));
void _dcpi_cstart(long argc, char **argv, char **envp) {
  environ = envp;
  if (argc > 0 && argv[0]) dcpi_program_name = argv[0];
  atexit(__libc_fini_array);
  __libc_init_array();
  exit(main((int)argc, argv, envp));
}
