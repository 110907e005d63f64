/* Memory faults in the middle of a block (issue 25): a store to each of
   PAGES pages of a 4 MB stack area. Our kernel maps 256 KB of stack at
   spawn and grows it on demand (kernel/process.cpp grow_user_stack): the
   first store to each page below faults, PALcode's memory-fault entry runs
   and returns to the store, which runs again. QEMU raises the fault at the
   store's access, in the middle of its translation block; the two addq's
   after it run once per page. tests/qemu/ev5_block_traps.py holds the ev5
   truth's counts against the qemu machine's. Prints the store's address
   and what the addq's added (2 per page: the program's own oracle). */
#include <stdio.h>

#define PAGES 512
#define PAGE_BYTES 8192

extern const char fault_site[];

static long __attribute__((noinline)) touch_pages(long pages) {
  /* Below the stack pointer, not alloca: gcc probes an alloca's pages
     itself. Safe here: the program takes no signal, and PALcode enters the
     kernel on the kernel's own stack. */
  char *sp;
  __asm__ volatile("mov $30, %0" : "=r"(sp));
  char *base = sp - (pages + 1) * PAGE_BYTES;
  long added = 0;
  for (long i = pages - 1; i >= 0; --i)
    __asm__ volatile(
        ".globl fault_site\n"
        "fault_site: stq %2, 0(%1)\n"
        "addq %0, 1, %0\n"
        "addq %0, 1, %0"
        : "+r"(added)
        : "r"(base + i * PAGE_BYTES), "r"(i)
        : "memory");
  return added;
}

int main(void) {
  const long added = touch_pages(PAGES);
  printf("stored at %p; the two after it added %ld\n", (const void *)fault_site, added);
  return added == 2L * PAGES ? 0 : 2;
}
