#!/usr/bin/env bash
# Link test for the Alpha newlib build: compiles hello.c + a stub OS layer +
# a C _start, links them statically against PREFIX/lib/libc.a, libm.a and
# libgcc, and checks the result with readelf/objdump/nm.  If qemu-alpha
# (Debian package qemu-user) is installed, it also runs a variant whose stubs
# use Linux system calls (hello.c, and runtime.c for the Alpha support code)
# and checks their output and exit status.
#
# Usage: tests/newlib/link-test.sh PREFIX      (PREFIX = toolchain/build-newlib.sh output)
set -euo pipefail

prefix=${1:?usage: link-test.sh PREFIX (the newlib install prefix)}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cross=alpha-linux-gnu-
fail() { echo "newlib link test: FAIL: $*" >&2; exit 1; }

for f in include/stdio.h include/math.h lib/libc.a lib/libm.a; do
  [ -f "$prefix/$f" ] || fail "$prefix/$f missing"
done

out=$(mktemp -d "${TMPDIR:-/tmp}/newlib-link-test.XXXXXX")
trap 'rm -rf "$out"' EXIT

gcc_inc=$("${cross}gcc" -print-file-name=include)
cflags=(-mcpu=ev56 -mieee -mlong-double-64 -O2 -g -Wall -Wextra -Werror
        -nostdinc -isystem "$prefix/include" -isystem "$gcc_inc"
        -I "$here/../..")  # firmware/callsys.h

build() { # build OUTPUT MAIN.c [extra cflags...]
  local exe=$1 main=$2; shift 2
  local objs=()
  for src in start.c syscalls.c "$main"; do
    "${cross}gcc" "${cflags[@]}" "$@" -c "$here/$src" -o "$exe.${src%.c}.o" || return 1
    objs+=("$exe.${src%.c}.o")
  done
  "${cross}gcc" -nostdlib -static -o "$exe" "${objs[@]}" \
    -Wl,--start-group "$prefix/lib/libc.a" "$prefix/lib/libm.a" -lgcc -Wl,--end-group || return 1
}

exe=$out/hello
build "$exe" hello.c || fail "compile/link"

# An Alpha ELF64 executable, statically linked ...
hdr=$("${cross}readelf" -h "$exe")
grep -Eq 'Class:[[:space:]]+ELF64' <<<"$hdr" || fail "not ELF64"
grep -Eq 'Machine:[[:space:]]+Alpha' <<<"$hdr" || fail "not an Alpha executable"
grep -Eq 'Type:[[:space:]]+EXEC' <<<"$hdr" || fail "not an executable (ET_EXEC)"
! "${cross}readelf" -l "$exe" | grep -Eq 'INTERP|DYNAMIC' || fail "not static"

# ... whose entry point is _start ...
syms=$("${cross}nm" "$exe")
entry=$(sed -n 's/.*Entry point address:[[:space:]]*0x0*//p' <<<"$hdr")
start=$(awk '$3 == "_start" { sub(/^0+/, "", $1); print $1 }' <<<"$syms")
if [ -z "$entry" ] || [ "$entry" != "$start" ]; then fail "entry 0x$entry is not _start (0x$start)"; fi

# ... with the library code pulled in and nothing left undefined.
for s in printf _vfprintf_r _dtoa_r malloc strlen sqrt _write_r __divqu; do
  grep -Eq " [Tt] $s\$" <<<"$syms" || fail "symbol $s not linked in"
done
undef=$("${cross}nm" -u "$exe" | grep -v ' w ' || true)
[ -z "$undef" ] || fail "undefined symbols: $undef"

# The library was compiled for EV56: byte/word (BWX) instructions appear in
# newlib code (the 21064/EV4 baseline has none).
# (Output goes to files: grep -q would end a pipe early, and pipefail would
# then report objdump's SIGPIPE.)
"${cross}objdump" -d "$exe" >"$out/hello.dis"
grep -Eq $'\t(ldbu|ldwu|stb|stw)[[:space:]]' "$out/hello.dis" ||
  fail "no BWX instructions: library not built with -mcpu=ev56?"
"${cross}objdump" -d --disassemble=sqrt "$exe" >"$out/sqrt.dis"
grep -q '<sqrt>:' "$out/sqrt.dis" || fail "objdump cannot find sqrt"

echo "newlib link test: static Alpha executable OK ($(stat -c %s "$exe") bytes)"

# Optional: run the programs in QEMU user mode, with Linux system calls in the
# stubs: hello (stdio, malloc, libm) and runtime (the division routines,
# setjmp/longjmp and IEEE special values that build-newlib.sh adds/configures).
if command -v qemu-alpha >/dev/null; then
  run() { # run MAIN.c EXPECTED-OUTPUT
    local exe=$out/${1%.c}-linux got status=0
    build "$exe" "$1" -DDCPI_LINUX_USER || fail "compile/link $1 (Linux user-mode variant)"
    got=$(qemu-alpha -cpu ev56 "$exe") || status=$?
    [ "$got" = "$2" ] || fail "qemu-alpha ${1%.c}: output '$got', expected '$2'"
    [ "$status" -eq 0 ] || fail "qemu-alpha ${1%.c}: exit status $status"
    echo "newlib link test: runs under qemu-alpha: $got"
  }
  run hello.c "n=42 len=5 pi=3.141593 sqrt2=1.414214 big=1234567890123"
  run runtime.c "runtime: ok"
else
  echo "newlib link test: qemu-alpha not installed, run skipped"
fi
