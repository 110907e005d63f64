/* Minimal system call wrappers for the kernel's test programs, on
 * firmware/callsys.h's callsys with firmware/syscalls.h's numbers (SYS_*,
 * DCPI_KINFO_*). Returns -errno on error. */
#pragma once

#include "firmware/callsys.h"

typedef unsigned long u64;

static inline long sys6(long n, long x0, long x1, long x2, long x3) {
  struct dcpi_sysret r = dcpi_callsys(n, x0, x1, x2, x3, 0, 0);
  return r.error ? -r.value : r.value;
}
#define sys0(n) sys6(n, 0, 0, 0, 0)
#define sys1(n, a) sys6(n, (long)(a), 0, 0, 0)
#define sys2(n, a, b) sys6(n, (long)(a), (long)(b), 0, 0)
#define sys3(n, a, b, c) sys6(n, (long)(a), (long)(b), (long)(c), 0)

static inline u64 str_len(const char* s) {
  u64 n = 0;
  while (s[n]) ++n;
  return n;
}
static inline int str_eq(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}
/* Console output is line-buffered so that each line reaches the console in
 * one write: lines of processes on other CPUs then never interleave. */
static char put_buffer[512];
static u64 put_length;
static inline void put_flush(void) {
  if (put_length) sys3(SYS_write, 1, put_buffer, put_length);
  put_length = 0;
}
static inline void put(const char* s) {
  int newline = 0;
  for (; *s; ++s) {
    if (put_length == sizeof put_buffer) put_flush();
    put_buffer[put_length++] = *s;
    newline |= *s == '\n';
  }
  if (newline) put_flush();
}
static inline void put_num(long v, int base) {
  char buf[24];
  int i = 23;
  u64 u = v < 0 && base == 10 ? -(u64)v : (u64)v;
  buf[i] = 0;
  do {
    buf[--i] = "0123456789abcdef"[base == 16 ? (u & 15) : (u % 10)];
    u = base == 16 ? u >> 4 : u / 10;
  } while (u);
  if (v < 0 && base == 10) buf[--i] = '-';
  put(buf + i);
}
static inline void put_kv(const char* key, long v) {
  put(key);
  put_num(v, 10);
  put("\n");
}
static inline u64 parse_hex(const char* s) {
  u64 v = 0;
  if (s[0] == '0' && s[1] == 'x') s += 2;
  for (; *s; ++s) v = v * 16 + (u64)(*s <= '9' ? *s - '0' : (*s | 32) - 'a' + 10);
  return v;
}
static inline long spawn(const char* path, const char* const* argv) {
  return sys2(SYS_spawn, path, argv);
}
static inline long wait_pid(long pid, int* status) {
  return sys6(SYS_wait4, pid, (long)status, 0, 0);
}
