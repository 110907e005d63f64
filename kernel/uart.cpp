#include "kernel/uart.h"

#include "driver/kernel_services.h"
#include "firmware/pal_abi.h"

namespace kernel {
namespace {

volatile uint8_t* const com1 = reinterpret_cast<volatile uint8_t*>(COM1_KSEG);
volatile uint8_t* const com2 = reinterpret_cast<volatile uint8_t*>(COM2_KSEG);
volatile uint8_t* const com3 = reinterpret_cast<volatile uint8_t*>(COM3_KSEG);
constexpr int kLineStatus = 5;
constexpr uint8_t kTransmitterEmpty = 0x20;

// Set from the command line (host=com3) by the host that added the UART:
// probing a UART that is not there wrote ISA ports that are something else
// on the clipper (a program in the default mix then misbehaved).
bool com3_enabled = false;

}  // namespace

void uart_put_char(char c) {
  while ((com1[kLineStatus] & kTransmitterEmpty) == 0) {
  }
  com1[0] = static_cast<uint8_t>(c);
}

void uart_write(const char* text, uint64_t length) {
  for (uint64_t i = 0; i < length; ++i) {
    if (text[i] == '\n') uart_put_char('\r');
    uart_put_char(text[i]);
  }
}

void uart2_write_bytes(const uint8_t* bytes, uint64_t length) {
  for (uint64_t i = 0; i < length; ++i) {
    while ((com2[kLineStatus] & kTransmitterEmpty) == 0) {
    }
    com2[0] = bytes[i];
  }
}

}  // namespace kernel

namespace kernel {

void uart3_enable() { com3_enabled = true; }

void uart3_write(const char* text, uint64_t length) {
  if (!com3_enabled) return;
  for (uint64_t i = 0; i < length; ++i) {
    while ((com3[kLineStatus] & kTransmitterEmpty) == 0) {
    }
    com3[0] = static_cast<uint8_t>(text[i]);
  }
}

}  // namespace kernel
