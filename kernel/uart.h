// 16550 UARTs on COM1 (ISA port 0x3f8) and COM2 (0x2f8), polled. DESIGN §3.
// COM1 is the console (kernel/console.cpp); COM3 the host channel; COM2, the DCPI serial transport,
// is the driver's, declared in driver/kernel_services.h (the one header
// through which the driver reaches the kernel) and implemented in uart.cpp.
#pragma once
#include <cstdint>

namespace kernel {

void uart_put_char(char c);
void uart_write(const char* text, uint64_t length);
// COM3, the host channel (issue 30): raw bytes, nothing until the host says
// (host=com3 on the command line) that it gave the machine a third UART.
void uart3_enable();
void uart3_write(const char* text, uint64_t length);

}  // namespace kernel
