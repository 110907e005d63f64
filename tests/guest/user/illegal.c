/* A reserved opcode (0x01): killed with SIGILL. */
int main(void) {
  __asm__ volatile(".long 0x04000000");
  return 0;
}
