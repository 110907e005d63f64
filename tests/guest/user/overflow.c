/* addqv overflows: killed with SIGFPE. */
int main(void) {
  long x = 0x7fffffffffffffffl, y;
  __asm__ volatile("addqv %1, 1, %0\n\ttrapb" : "=r"(y) : "r"(x));
  return (int)y;
}
