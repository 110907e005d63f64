/* Dereferences a null pointer: killed with SIGSEGV. */
int main(void) { return *(volatile int*)0; }
