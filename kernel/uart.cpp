#include "kernel/uart.h"

#include "driver/kernel_services.h"
#include "firmware/pal_abi.h"

namespace kernel {
namespace {

volatile uint8_t* const com1 = reinterpret_cast<volatile uint8_t*>(COM1_KSEG);
volatile uint8_t* const com2 = reinterpret_cast<volatile uint8_t*>(COM2_KSEG);
volatile uint8_t* const com3 = reinterpret_cast<volatile uint8_t*>(COM3_KSEG);
constexpr int kLineStatus = 5;
constexpr int kScratch = 7;
constexpr uint8_t kTransmitterEmpty = 0x20;

// An absent UART reads as all ones or all zeros: one that keeps two
// different scratch values is there. Waiting on an absent one would hang.
bool com3_present() {
  static int present = -1;  // callers hold the console lock
  if (present < 0) {
    com3[kScratch] = 0x5a;
    const bool first = com3[kScratch] == 0x5a;
    com3[kScratch] = 0xa5;
    present = first && com3[kScratch] == 0xa5;
  }
  return present == 1;
}

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

void uart3_write(const char* text, uint64_t length) {
  if (!com3_present()) return;
  for (uint64_t i = 0; i < length; ++i) {
    while ((com3[kLineStatus] & kTransmitterEmpty) == 0) {
    }
    com3[0] = static_cast<uint8_t>(text[i]);
  }
}

}  // namespace kernel
