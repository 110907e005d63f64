/* Program entry for the newlib link test.  _start has to establish $gp
   before any C code runs (a C prologue computes $gp from $27, which the
   loader does not set), so it is a few instructions of top-level assembly
   that call the C part.  */
#include <stdlib.h>

extern int main(void);
extern void __libc_init_array(void);
extern void __libc_fini_array(void);

/* newlib is built with HAVE_INIT_FINI: __libc_init_array calls _init and
   __libc_fini_array calls _fini (normally from crti.o). */
void _init(void) {}
void _fini(void) {}

void _cstart(void) __attribute__((noreturn, used));
void _cstart(void)
{
  atexit(__libc_fini_array);
  __libc_init_array();
  exit(main());
}

__asm__(
    "	.text\n"
    "	.align 4\n"
    "	.globl _start\n"
    "	.ent _start\n"
    "_start:\n"
    "	.frame $30, 0, $31, 0\n"
    "	br $29, 1f\n"
    "1:	ldgp $29, 0($29)\n"
    "	.prologue 1\n"
    "	mov $31, $15\n"
    "	lda $30, -16($30)\n"      /* keep sp 16-byte aligned */
    "	bic $30, 15, $30\n"
    "	jsr $26, _cstart\n"
    "	.end _start\n");
