#!/usr/bin/env bash
# Builds newlib (libc.a, libm.a, headers) for the Alpha guest from the source
# tarball of Debian's newlib-source package, with the installed
# alpha-linux-gnu cross compiler (DESIGN §3).
#
# Usage: toolchain/build-newlib.sh            (no arguments)
# Env:   DCPI_CACHE  cache root (default ~/.cache/dcpi)
#        DCPI_JOBS   make parallelism (default 2)
#
# Result: ${DCPI_CACHE}/newlib-<debian version>-alpha-<hash>/{include,lib}
# where <hash> covers the configure flags, compiler flags, compiler version and
# the files in toolchain/newlib/.  A stamp file (.complete) is written last; if
# it exists the script only prints the path.  The install prefix is always the
# last line on stdout (everything else goes to stderr), so CMake can run
# the script with execute_process and take the last line.
#
# Newlib is configured as a bare-metal library (host alpha-elf) with no
# operating-system glue: write() -> _write_r() -> _write(), so the program
# must supply _write, _read, _open, _close, _lseek, _fstat, _isatty, _sbrk,
# _exit, _getpid, _kill, _gettimeofday, _times, ... (libgloss convention).
#
# Consumers compile with
#   alpha-linux-gnu-gcc -mcpu=ev56 -mieee -mlong-double-64 -nostdinc \
#       -isystem PREFIX/include -isystem $(alpha-linux-gnu-gcc -print-file-name=include)
# (-nostdinc matters: the Debian cross compiler also searches glibc's
# /usr/alpha-linux-gnu/include and even /usr/include) and link with
#   -nostdlib -static crt... objs PREFIX/lib/libc.a PREFIX/lib/libm.a -lgcc
# (in a group or repeated, because libc.a needs the OS layer and vice versa).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
support=$here/newlib
patch_file=$support/newlib-alpha.patch
setjmp_src=$support/alpha-setjmp.S
divide_src=$support/alpha-divide.S

cross=alpha-linux-gnu-
jobs=${DCPI_JOBS:-2}
cache=${DCPI_CACHE:-$HOME/.cache/dcpi}

# Bump when the recipe below changes in a way the hash does not see.
recipe=1

log() { echo "build-newlib: $*" >&2; }
die() { log "error: $*"; exit 1; }

for t in gcc ar ranlib as nm; do
  command -v "${cross}$t" >/dev/null || die "${cross}$t not found (run toolchain/install-deps.sh)"
done

debver=$(dpkg-query -W -f='${Version}' newlib-source 2>/dev/null) ||
  die "Debian package newlib-source is not installed (run toolchain/install-deps.sh)"
tarball=$(dpkg -L newlib-source | grep -E '/newlib-[^/]*\.tar\.(xz|gz|bz2)$' | head -n1)
if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then die "no newlib tarball in package newlib-source"; fi

gcc_inc=$("${cross}gcc" -print-file-name=include)
[ -f "$gcc_inc/stddef.h" ] || die "cannot find the cross compiler's own include directory"

# Code generation: the 21164A (EV56, with byte/word instructions) and full
# IEEE semantics (-mieee: denormals, NaN and infinities are handled in
# software-completion mode instead of trapping; Debian's compiler defaults to
# it already, we make it explicit) and a 64-bit long double (-mlong-double-64:
# the Linux default, 128-bit, needs the _Ots* X_floating routines that glibc
# supplies and newlib lacks; with long double == double newlib's libm also
# provides all the *l functions).  Code linked with this newlib must use the
# same -mlong-double-64.
target_cflags="-mcpu=ev56 -mieee -mlong-double-64 -O2 -g"

# Why each flag: see toolchain/newlib/README.md.
configure_flags=(
  --host=alpha-elf                       # bare metal: no Linux syscall glue, no crt0
  --disable-multilib                     # one library, one ABI
  --disable-newlib-supplied-syscalls     # the OS layer provides _write, _sbrk, ...
  --disable-newlib-multithread           # -D__SINGLE_THREAD__: no locking calls
  --enable-newlib-io-long-long           # %lld / %llu
  --enable-newlib-io-c99-formats         # %zu %jd %hhd %tx ...
  --disable-newlib-io-long-double        # not needed: long double == double here
  --disable-newlib-iconv
  --disable-newlib-mb                    # no multibyte locales
)

key=$(
  {
    echo "recipe=$recipe"
    echo "tarball=$(basename "$tarball") $(sha256sum <"$tarball" | cut -c1-16)"
    echo "cc=$("${cross}gcc" --version | head -n1)"
    echo "cflags=$target_cflags"
    printf '%s\n' "${configure_flags[@]}"
    cat "$patch_file" "$setjmp_src" "$divide_src"
  } | sha256sum | cut -c1-10
)
dest=$cache/newlib-${debver//[:\/]/_}-alpha-$key
stamp=$dest/.complete

if [ -f "$stamp" ]; then
  echo "$dest"
  exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.newlib.lock"
flock 9                                   # another build of the same cache may be running
if [ -f "$stamp" ]; then
  echo "$dest"
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-newlib.XXXXXX")
buildlog=$work/build.log
failed_log=$cache/newlib-build-failed.log
cleanup() { if [ -n "${DCPI_KEEP_BUILD:-}" ]; then log "kept $work"; else rm -rf "$work"; fi; }
fail() {
  log "FAILED: $*"
  if [ -f "$buildlog" ]; then
    log "--- last 60 lines of the build log ---"
    tail -n 60 "$buildlog" >&2
    cp "$buildlog" "$failed_log"
    log "--- full log: $failed_log"
  fi
  exit 1
}
trap cleanup EXIT
: >"$buildlog"

start=$SECONDS
log "building newlib $debver for Alpha into $dest (log: $buildlog)"

src=$work/src
mkdir -p "$src"
tar -xf "$tarball" -C "$src" --strip-components=1 || fail "unpacking $tarball"
patch -d "$src" -p1 --forward --quiet <"$patch_file" >>"$buildlog" 2>&1 || fail "applying $patch_file"

# -nostdinc: keep glibc's and the host's headers out of the newlib build.
export CC="${cross}gcc -nostdinc -isystem $gcc_inc"
export CFLAGS="$target_cflags"
export CCAS="$CC" CCASFLAGS="$target_cflags"
export AR="${cross}ar" RANLIB="${cross}ranlib" AS="${cross}as" NM="${cross}nm"
export LD="${cross}ld" OBJDUMP="${cross}objdump" READELF="${cross}readelf" STRIP="${cross}strip"

mkdir -p "$work/build"
(
  cd "$work/build"
  "$src/newlib/configure" --prefix="$work/stage" "${configure_flags[@]}"
) >>"$buildlog" 2>&1 || fail "configure"
log "configured ($((SECONDS - start)) s); compiling with make -j$jobs"

make -C "$work/build" -j"$jobs" all >>"$buildlog" 2>&1 || fail "make"
make -C "$work/build" install >>"$buildlog" 2>&1 || fail "make install"

# newlib installs into <prefix>/<host alias>/{include,lib}.
stage_inc=$(find "$work/stage" -type f -name stdio.h -path '*/include/stdio.h' | head -n1)
stage_inc=${stage_inc%/stdio.h}
stage_lib=$(find "$work/stage" -type f -name libc.a | head -n1)
stage_lib=${stage_lib%/libc.a}
if [ -z "$stage_inc" ] || [ -z "$stage_lib" ] || [ ! -f "$stage_lib/libm.a" ]; then
  fail "make install did not produce include/stdio.h, libc.a and libm.a"
fi

# setjmp/longjmp (newlib has no libc/machine/alpha) and the integer division
# routines GCC calls (__divq, __remqu, ...; glibc has them on Linux).  The
# division routines also go alone into libalphadiv.a for freestanding code.
for s in "$setjmp_src" "$divide_src"; do
  o=$work/$(basename "${s%.S}").o
  # shellcheck disable=SC2086  # CC and the flags are word lists
  ${CC} $target_cflags -c "$s" -o "$o" >>"$buildlog" 2>&1 || fail "assembling $s"
  "${cross}ar" rs "$stage_lib/libc.a" "$o" >>"$buildlog" 2>&1 || fail "adding $o to libc.a"
done
"${cross}ar" rcs "$stage_lib/libalphadiv.a" "$work/alpha-divide.o" >>"$buildlog" 2>&1 ||
  fail "creating libalphadiv.a"
if [ -e "$stage_lib/libg.a" ]; then            # libg.a is a (hard-linked) copy of libc.a
  rm -f "$stage_lib/libg.a" && cp "$stage_lib/libc.a" "$stage_lib/libg.a"
fi

# Assemble the result next to its final place, then move it in and stamp it.
rm -rf "$dest" "$dest.partial"
mkdir -p "$dest.partial"
cp -a "$stage_inc" "$dest.partial/include"
cp -a "$stage_lib" "$dest.partial/lib"
mv "$dest.partial" "$dest"

elapsed=$((SECONDS - start))
{
  echo "newlib-source $debver ($tarball)"
  echo "compiler: $("${cross}gcc" --version | head -n1)"
  echo "CFLAGS: $target_cflags"
  echo "configure: ${configure_flags[*]}"
  echo "build seconds: $elapsed (make -j$jobs)"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$dest/BUILD-INFO"
touch "$stamp"
log "done in ${elapsed} s"
echo "$dest"
