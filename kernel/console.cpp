#include "kernel/console.h"

#include "driver/kernel_services.h"
#include "firmware/console_marks.h"
#include "firmware/pal_abi.h"
#include "kernel/palcalls.h"
#include "kernel/spinlock.h"
#include "kernel/uart.h"

namespace kernel {
namespace {

SpinLock console_lock;
// Which streams are terminals (bit stream - 1), set once at boot.
uint32_t terminals = 0;
// The stream the last program bytes went to: the host's echo reads the
// bytes after a stream mark as that stream's (firmware/console_marks.h).
ConsoleStream current_stream = ConsoleStream::kOutput;
// A stream's last program write left its line unfinished: a system message
// on that stream sends the line-break mark first.
bool program_mid_line[3] = {};

// Under console_lock: program bytes of `stream` follow.
void select_stream(ConsoleStream stream) {
  if (stream == current_stream) return;
  uart_write(stream == ConsoleStream::kError ? DCPI_CONSOLE_TO_STDERR : DCPI_CONSOLE_TO_STDOUT,
             DCPI_CONSOLE_MARK_LENGTH);
  current_stream = stream;
}

// Under console_lock: a system message starts here.
void begin_system_message() {
  bool& mid_line = program_mid_line[static_cast<int>(current_stream)];
  if (!mid_line) return;
  uart_write(DCPI_CONSOLE_LINE_BREAK, DCPI_CONSOLE_MARK_LENGTH);
  mid_line = false;
}

// Formats into a line buffer so that one kprintf is one UART burst.
class LineBuffer {
 public:
  void put(char c) {
    if (length_ == sizeof(text_)) flush();
    text_[length_++] = c;
  }
  void put(const char* s) {
    while (*s) put(*s++);
  }
  void flush() {
    uart_write(text_, length_);
    uart3_write(text_, length_);
    length_ = 0;
  }

 private:
  char text_[256];
  uint64_t length_ = 0;
};

// Alpha has no divide instruction (glibc supplies __divqu); divide by ten
// with a multiply-high by 2^67 / 10 instead.
uint64_t divide_by_ten(uint64_t value) {
  return __builtin_alpha_umulh(value, 0xcccccccccccccccdull) >> 3;
}

// kformat's output: at most capacity - 1 characters and a NUL; counts what
// would have been written.
class BufferSink {
 public:
  BufferSink(char* text, uint64_t capacity) : text_(text), capacity_(capacity) {}
  void put(char c) {
    if (length_ + 1 < capacity_) text_[length_] = c;
    ++length_;
  }
  void put(const char* s) {
    while (*s) put(*s++);
  }
  uint64_t finish() {
    if (capacity_ > 0) text_[length_ < capacity_ ? length_ : capacity_ - 1] = 0;
    return length_;
  }

 private:
  char* text_;
  uint64_t capacity_;
  uint64_t length_ = 0;
};

template <typename Out>
void put_unsigned(Out& out, uint64_t value, unsigned base, int width, char pad) {
  char digits[24];
  int count = 0;
  do {
    uint64_t digit;
    if (base == 16) {
      digit = value & 15;
      value >>= 4;
    } else {
      const uint64_t quotient = divide_by_ten(value);
      digit = value - quotient * 10;
      value = quotient;
    }
    digits[count++] = static_cast<char>(digit < 10 ? '0' + digit : 'a' + digit - 10);
  } while (value != 0);
  for (int i = count; i < width; ++i) out.put(pad);
  while (count > 0) out.put(digits[--count]);
}

template <typename Out>
void put_signed(Out& out, int64_t value, int width) {
  if (value < 0) {
    out.put('-');
    put_unsigned(out, static_cast<uint64_t>(-value), 10, width > 0 ? width - 1 : 0, ' ');
  } else {
    put_unsigned(out, static_cast<uint64_t>(value), 10, width, ' ');
  }
}

template <typename Out>
void format(Out& out, const char* f, va_list args) {
  for (; *f; ++f) {
    if (*f != '%') {
      out.put(*f);
      continue;
    }
    ++f;
    const char pad = (*f == '0') ? '0' : ' ';
    int width = 0;
    while (*f >= '0' && *f <= '9') width = width * 10 + (*f++ - '0');
    bool is_long = false;
    while (*f == 'l') {
      is_long = true;
      ++f;
    }
    switch (*f) {
      case 'd':
        put_signed(out, is_long ? va_arg(args, int64_t) : va_arg(args, int), width);
        break;
      case 'u':
        put_unsigned(out, is_long ? va_arg(args, uint64_t) : va_arg(args, unsigned), 10, width,
                     pad);
        break;
      case 'x':
        put_unsigned(out, is_long ? va_arg(args, uint64_t) : va_arg(args, unsigned), 16, width,
                     pad);
        break;
      case 'p':
        out.put("0x");
        put_unsigned(out, reinterpret_cast<uint64_t>(va_arg(args, void*)), 16, 16, '0');
        break;
      case 's': {
        const char* s = va_arg(args, const char*);
        out.put(s ? s : "(null)");
        break;
      }
      case 'c':
        out.put(static_cast<char>(va_arg(args, int)));
        break;
      case '%':
        out.put('%');
        break;
      default:
        out.put('%');
        out.put(*f);
        break;
    }
  }
}

}  // namespace

uint64_t kvformat(char* text, uint64_t capacity, const char* f, va_list args) {
  BufferSink out(text, capacity);
  format(out, f, args);
  return out.finish();
}

uint64_t kformat(char* text, uint64_t capacity, const char* f, ...) {
  va_list args;
  va_start(args, f);
  const uint64_t length = kvformat(text, capacity, f, args);
  va_end(args);
  return length;
}

void kvprintf(const char* f, va_list args) {
  LineBuffer out;
  format(out, f, args);
  // Printing from an interrupt handler must not deadlock on a lock that its
  // own CPU holds at a lower level: hold the lock at the highest IPL.
  const uint64_t ipl = pal::swpipl(IPL_HIGH);
  console_lock.lock();
  begin_system_message();
  out.flush();
  console_lock.unlock();
  pal::swpipl(ipl);
}

void console_write(const char* text, uint64_t length, bool to_host, ConsoleStream stream) {
  const uint64_t ipl = pal::swpipl(IPL_HIGH);
  console_lock.lock();
  if (to_host) {  // init's messages
    begin_system_message();
  } else {
    select_stream(stream);
    if (length > 0) program_mid_line[static_cast<int>(stream)] = text[length - 1] != '\n';
  }
  uart_write(text, length);
  if (to_host) uart3_write(text, length);
  console_lock.unlock();
  pal::swpipl(ipl);
}

void set_console_terminals(uint32_t streams) { terminals = streams; }
bool console_is_terminal(ConsoleStream stream) {
  return (terminals >> (static_cast<int>(stream) - 1)) & 1;
}

void kprintf(const char* f, ...) {
  va_list args;
  va_start(args, f);
  kvprintf(f, args);
  va_end(args);
}

void panic(const char* f, ...) {
  va_list args;
  va_start(args, f);
  kprintf("panic: ");
  kvprintf(f, args);
  va_end(args);
  kprintf("\n");
  pal::halt();
  for (;;) {
  }
}

}  // namespace kernel
