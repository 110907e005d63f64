// Kernel console on COM1: a small printf, serialized across CPUs.
#pragma once
#include <cstdarg>
#include <cstdint>

namespace kernel {

// Supports %d %u %x %s %c %p with optional l/ll and a field width ("%8u").
void kprintf(const char* format, ...) __attribute__((format(printf, 1, 2)));
void kvprintf(const char* format, va_list args);
[[noreturn]] void panic(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace kernel
