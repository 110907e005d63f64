#!/usr/bin/env bash
# Cross-builds the "real" mix (issue 15): programs nobody here wrote, from
# Debian's source packages (apt-get source, with Debian's patches applied),
# compiled with the stock alpha-linux-gnu-gcc and dynamically linked against
# the cross glibc in /usr/alpha-linux-gnu, each with its library as a shared
# object the way Debian packages it:
#   lua5.4  bin/lua      + lib/liblua5.4.so.0   runs workloads/real/bench.lua
#   bzip2   bin/bzip2    + lib/libbz2.so.1.0    tests (decompresses) .bz2 files
#   zlib    bin/minigzip + lib/libz.so.1        decompresses a .gz file to stdout
#   dash    bin/dash                            runs workloads/real/shell.sh (issue 29)
#   xz-utils bin/xz     + lib/liblzma.so.5      compresses and decompresses with -T4 (issue 29)
#   sqlite3 bin/sqlite3 + lib/libsqlite3.so.0   runs workloads/real/shop.sql (issue 29)
#
# Usage: toolchain/build-real-programs.sh      (builds, or finds, the mix)
#        toolchain/build-real-programs.sh --prefix-only  (where it goes; nothing built:
#          configuring needs only that, the build is the `real-programs` target)
# Env:   DCPI_CACHE  cache root (default ~/.cache/dcpi)
#        DCPI_JOBS   parallel compiles (default 2)
#
# Result: ${DCPI_CACHE}/real-<source versions>-alpha-<hash>/
#   bin/  lib/  etc/real/ (the data files: bench.lua, *.bz2, *.gz)
# keyed by the Debian source versions and a hash of this script, the compiler
# version and workloads/real/; .complete is written last. The prefix is the
# last line on stdout (the rest goes to stderr), like build-newlib.sh. Needs
# the deb-src line that toolchain/install-deps.sh adds (the first build only).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
data_src=$here/../workloads/real
cross=alpha-linux-gnu-
jobs=${DCPI_JOBS:-2}
cache=${DCPI_CACHE:-$HOME/.cache/dcpi}
sources=(lua5.4 bzip2 zlib dash xz-utils sqlite3)
recipe=1 # bump when the recipe changes in a way the hash does not see

log() { echo "build-real-programs: $*" >&2; }
die() { log "error: $*"; exit 1; }

command -v "${cross}gcc" >/dev/null || die "${cross}gcc not found (run toolchain/install-deps.sh)"
command -v qemu-alpha >/dev/null || die "qemu-alpha not found (run toolchain/install-deps.sh)"
command -v tclsh >/dev/null || die "tclsh not found: sqlite3 generates its sources with it (run toolchain/install-deps.sh)"
versions=
for package in "${sources[@]}"; do
  version=$(apt-cache showsrc "$package" 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n1)
  [ -n "$version" ] || die "no source package $package: add bookworm's deb-src line (toolchain/install-deps.sh) and apt-get update"
  versions+="${package}_${version//[:\/]/_}-"
done
cflags="-O2 -g"
key=$(
  {
    echo "recipe=$recipe $versions $cflags"
    "${cross}gcc" --version | head -n1
    cat "${BASH_SOURCE[0]}" "$data_src"/*
  } | sha256sum | cut -c1-10
)
dest=$cache/real-${versions}alpha-$key
if [ -f "$dest/.complete" ] || [ "${1:-}" = --prefix-only ]; then echo "$dest"; exit 0; fi
mkdir -p "$cache"
exec 9>"$cache/.real.lock"
flock 9
if [ -f "$dest/.complete" ]; then echo "$dest"; exit 0; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-real.XXXXXX")
trap 'rm -rf "$work"' EXIT
buildlog=$work/build.log
fail() { log "FAILED: $*"; tail -n 40 "$buildlog" >&2; exit 1; }
start=$SECONDS
log "building ${sources[*]} ($versions) for Alpha into $dest"
(cd "$work" && apt-get source -q "${sources[@]}") >>"$buildlog" 2>&1 || fail "apt-get source ${sources[*]}"
stage=$work/stage
mkdir -p "$stage/bin" "$stage/lib" "$stage/etc/real"
CC="${cross}gcc"

# compile OUT_DIR FLAGS... -- SOURCES...: one object per source, $jobs at a time.
compile() {
  local out=$1; shift
  local flags=()
  while [ "$1" != -- ]; do flags+=("$1"); shift; done
  shift
  mkdir -p "$out"
  printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh -c \
    'f={}; exec "$0" "$@" -c "$f" -o "'"$out"'/$(basename "${f%.c}").o"' "$CC" "${flags[@]}"
}

build_lua() {
  local src=$work/lua5.4-*/src core=()
  src=$(echo $src)
  for f in lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject lopcodes lparser \
    lstate lstring ltable ltm lundump lvm lzio lauxlib lbaselib lcorolib ldblib liolib \
    lmathlib loadlib loslib lstrlib ltablib lutf8lib linit; do core+=("$src/$f.c"); done
  # As debian/rules does: the multiarch header luaconf.h includes, Debian's
  # version script for the library.
  printf '#define DEB_HOST_MULTIARCH "alpha-linux-gnu"\n' >"$src/lua5.4-deb-multiarch.h"
  local defs=(-DLUA_COMPAT_5_3 -DLUA_USE_LINUX -Wall)
  compile "$work/o/lua" $cflags -fPIC "${defs[@]}" -- "${core[@]}"
  $CC -shared -Wl,-soname,liblua5.4.so.0 -Wl,--version-script,"$src/../debian/version-script" \
    -o "$stage/lib/liblua5.4.so.0" "$work"/o/lua/*.o -lm
  $CC $cflags "${defs[@]}" -o "$stage/bin/lua" "$src/lua.c" -L"$stage/lib" -l:liblua5.4.so.0 -lm
}

build_bzip2() {
  local src
  src=$(echo "$work"/bzip2-*)
  local parts=()
  for f in blocksort huffman crctable randtable compress decompress bzlib; do parts+=("$src/$f.c"); done
  compile "$work/o/bz2" $cflags -fPIC -D_FILE_OFFSET_BITS=64 -Wall -- "${parts[@]}"
  $CC -shared -Wl,-soname,libbz2.so.1.0 -o "$stage/lib/libbz2.so.1.0" "$work"/o/bz2/*.o
  $CC $cflags -D_FILE_OFFSET_BITS=64 -o "$stage/bin/bzip2" "$src/bzip2.c" -I"$src" \
    -L"$stage/lib" -l:libbz2.so.1.0
}

build_zlib() {
  local src
  src=$(echo "$work"/zlib-*)
  local parts=()
  for f in adler32 crc32 deflate infback inffast inflate inftrees trees zutil compress uncompr \
    gzclose gzlib gzread gzwrite; do parts+=("$src/$f.c"); done
  local defs=(-D_LARGEFILE64_SOURCE=1 -DHAVE_UNISTD_H -DHAVE_STDARG_H -DHAVE_HIDDEN)
  compile "$work/o/z" $cflags -fPIC "${defs[@]}" -- "${parts[@]}"
  $CC -shared -Wl,-soname,libz.so.1 -Wl,--version-script,"$src/zlib.map" \
    -o "$stage/lib/libz.so.1" "$work"/o/z/*.o
  $CC $cflags "${defs[@]}" -o "$stage/bin/minigzip" "$src/test/minigzip.c" -I"$src" \
    -L"$stage/lib" -l:libz.so.1
}

# dash with Debian's patches, cross-configured. Debian's patches add
# src/priv.c without regenerating src/Makefile.in (debian/rules runs
# autoreconf, which needs automake here): the generators stay off and
# priv.o is linked by naming it.
build_dash() {
  local src objects="builtins.o init.o nodes.o signames.o syntax.o priv.o"
  src=$(echo "$work"/dash-*/)
  (cd "$src" && ./configure -q --host=alpha-linux-gnu CC="$CC" CC_FOR_BUILD=gcc CFLAGS="$cflags" &&
    make -j"$jobs" -C src ACLOCAL=true AUTOCONF=true AUTOMAKE=true AUTOHEADER=true \
      "dash_LDADD=$objects" "dash_DEPENDENCIES=$objects")
  cp "$src/src/dash" "$stage/bin/dash"
}

# xz-utils with its autotools build (Debian's configure, shared liblzma
# only), without the tools the mix does not run.
build_xz() {
  local src
  src=$(echo "$work"/xz-utils-*/)
  (cd "$src" && ./configure -q --host=alpha-linux-gnu CC="$CC" CFLAGS="$cflags" --disable-static \
    --disable-doc --disable-nls --disable-scripts --disable-lzmadec --disable-lzmainfo \
    --disable-xzdec --disable-lzma-links && make -j"$jobs")
  cp "$src/src/xz/.libs/xz" "$stage/bin/xz"
  cp -L "$src/src/liblzma/.libs/liblzma.so.5" "$stage/lib/liblzma.so.5"
}

# sqlite3's shell and library from the amalgamation, as upstream ships it.
# Debian's source has no sqlite3.c: configure (with --build, so that it is a
# cross build and BUILD_CC compiles the generators for this machine) and
# `make sqlite3.c shell.c` generate it with tclsh and lemon; Debian's
# 30-cross.patch builds lemon with the target compiler unless
# CROSS_BUILDING=yes. Then the library (Debian's feature flags from
# debian/rules) and the shell are compiled directly: the libtool build
# would compile the 8.6 MB amalgamation twice.
build_sqlite3() {
  local src defs
  src=$(echo "$work"/sqlite3-*/)
  (cd "$src" && ./configure -q --build="$(gcc -dumpmachine)" --host=alpha-linux-gnu CC="$CC" \
    BUILD_CC=gcc CFLAGS="$cflags" --disable-tcl --disable-readline --disable-editline &&
    make CROSS_BUILDING=yes sqlite3.c shell.c)
  defs=$(sed -n '/^export CFLAGS += -O2/,/^$/p' "$src/debian/rules" | grep -o -- '-DSQLITE_[A-Z0-9_]*\(=[0-9]*\)\?')
  [ -n "$defs" ] || return 1
  # shellcheck disable=SC2086 # one word per flag
  $CC $cflags -fno-strict-aliasing $defs -fPIC -c "$src/sqlite3.c" -o "$work/sqlite3.o"
  $CC -shared -Wl,-soname,libsqlite3.so.0 -o "$stage/lib/libsqlite3.so.0" "$work/sqlite3.o" -lm
  # shellcheck disable=SC2086
  $CC $cflags -fno-strict-aliasing $defs -I"$src" -o "$stage/bin/sqlite3" "$src/shell.c" \
    -L"$stage/lib" -l:libsqlite3.so.0
}

# The data: the bench script, bzip2's own test files, and a text compressed
# by the Alpha programs themselves (under qemu-alpha, so no host tool decides
# the bytes).
make_data() {
  local real=$stage/etc/real bz gz
  bz=$(echo "$work"/bzip2-*)
  gz=$(echo "$work"/zlib-*)
  cp "$data_src"/bench.lua "$data_src"/shell.sh "$data_src"/shop.sql "$real/"
  "$data_src"/words.sh >"$real/words.txt"
  cp "$bz"/sample1.bz2 "$bz"/sample2.bz2 "$bz"/sample3.bz2 "$real/"
  local run=(qemu-alpha -L /usr/alpha-linux-gnu -E "LD_LIBRARY_PATH=$stage/lib")
  "${run[@]}" "$stage/bin/bzip2" -9 -c "$(echo "$work"/lua5.4-*/doc/manual.html)" >"$real/manual.html.bz2"
  "${run[@]}" "$stage/bin/minigzip" -9 -c "$gz/ChangeLog" >"$real/ChangeLog.gz"
}

for step in build_lua build_bzip2 build_zlib build_dash build_xz build_sqlite3 make_data; do
  "$step" >>"$buildlog" 2>&1 || fail "$step"
done
rm -rf "$dest" "$dest.partial"
cp -a "$stage" "$dest.partial"
{
  echo "sources: $versions (apt-get source ${sources[*]})"
  echo "compiler: $("${cross}gcc" --version | head -n1)"
  echo "CFLAGS: $cflags; build seconds: $((SECONDS - start)) (-j$jobs)"
} >"$dest.partial/BUILD-INFO"
mv "$dest.partial" "$dest"
touch "$dest/.complete"
log "done in $((SECONDS - start)) s"
echo "$dest"
