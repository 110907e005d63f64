// 16550 UART on COM1 (ISA port 0x3f8), polled. DESIGN §3.
#pragma once
#include <cstdint>

namespace firmware {

void uart_put_char(char c);
void uart_write(const char* text, uint64_t length);

}  // namespace firmware
