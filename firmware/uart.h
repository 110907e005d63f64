// 16550 UARTs on COM1 (ISA port 0x3f8) and COM2 (0x2f8), polled. DESIGN §3.
#pragma once
#include <cstdint>

namespace firmware {

void uart_put_char(char c);
void uart_write(const char* text, uint64_t length);

// COM2 (ISA port 0x2f8): raw bytes, no newline translation. The DCPI serial
// transport (docs/transfer-format.md "Serial stream").
void uart2_write_bytes(const uint8_t* bytes, uint64_t length);

}  // namespace firmware
