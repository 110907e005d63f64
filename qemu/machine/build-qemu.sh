#!/usr/bin/env bash
# Builds the `ev5` machine's qemu-system-alpha: Debian's QEMU source (the same
# 10.0.2 as the installed qemu-system-misc) with qemu/machine/patches/*.patch, which
# add a plugin API call that charges modelled cycles to the running vCPU's
# icount budget and leaves the translation block precisely when a timer
# deadline falls inside a charge (docs/ev5-machine.md,
# ../shared/research/ev5-clock.md). Only alpha-softmmu is built (~4 min on
# two cores).
#
# Usage: qemu/machine/build-qemu.sh                (builds, or finds, the binary)
#        qemu/machine/build-qemu.sh --header-only  (only the patched qemu-plugin.h,
#          in seconds: what configuring the plugin needs; the binary is built
#          when first needed, issue 31)
# Env:   DCPI_CACHE  cache root (default ~/.cache/dcpi)
#        DCPI_JOBS   ninja parallelism (default 2)
# Result: ${DCPI_CACHE}/qemu-<version>-<hash>/{bin/qemu-system-alpha,
#         include/qemu-plugin.h}; <hash> covers the patches and this recipe.
# A stamp (.complete) is written last; when present the script only prints
# the path. The prefix is the last line on stdout (logs go to stderr).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
patches=("$here"/patches/*.patch)
cache=${DCPI_CACHE:-$HOME/.cache/dcpi}
jobs=${DCPI_JOBS:-2}
version=10.0.2+ds
tarball=qemu_${version}.orig.tar.xz
# The orig tarball of Debian's qemu 1:10.0.2+ds-2+deb13u1~bpo12+1 (and of
# every 10.0.2+ds Debian revision): checked because only it, not the .dsc,
# is always downloadable.
tarball_sha256=0901da33844a331bf8b3602b9c1fbd178e60b737c8e3ade678255bd090c9b9f1
recipe=1   # bump when the configure line below changes

log() { echo "build-qemu: $*" >&2; }
die() { log "error: $*"; exit 1; }

hash=$( (echo "recipe $recipe $version"; cat "${patches[@]}") | sha256sum | cut -c1-10)
prefix=$cache/qemu-$version-ev5-$hash
if [ -f "$prefix/.complete" ]; then
  echo "$prefix"
  exit 0
fi
header_only=false
[ "${1:-}" = --header-only ] && header_only=true
if $header_only && [ -f "$prefix/include/qemu-plugin.h" ]; then
  echo "$prefix"
  exit 0
fi

for tool in meson ninja python3 patch; do
  command -v $tool >/dev/null || die "$tool not found (run toolchain/install-deps.sh)"
done

src_dir=$cache/qemu-src
mkdir -p "$src_dir"
if [ ! -f "$src_dir/$tarball" ]; then
  log "fetching Debian's qemu source ($version)"
  # The .dsc of the backport is sometimes missing from the mirror; the orig
  # tarball is all we need (checked below), so a partial fetch is fine.
  (cd "$src_dir" && apt-get source --download-only "qemu" >&2 || true)
  [ -f "$src_dir/$tarball" ] || die "apt-get source qemu did not fetch $tarball (deb-src for the qemu 10.0.2 release needed)"
fi
echo "$tarball_sha256  $src_dir/$tarball" | sha256sum -c --quiet - >&2 ||
  die "$tarball does not have the expected checksum"

if $header_only; then
  # One member of the tarball and its hunks of the patches, nothing built.
  work=$(mktemp -d "$cache/qemu-header.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  header=include/qemu/qemu-plugin.h
  tar -C "$work" --no-same-owner -xf "$src_dir/$tarball" "qemu-${version%+ds}/$header"
  for p in "${patches[@]}"; do
    python3 - "$p" "$header" >"$work/header.patch" <<'PY'
import re, sys
sections = re.split(r"(?m)^(?=--- |diff --git )", open(sys.argv[1]).read())
print("".join(s for s in sections if s.startswith("--- a/" + sys.argv[2] + "\n")), end="")
PY
    if [ -s "$work/header.patch" ]; then
      patch -d "$work/qemu-${version%+ds}" -p1 --quiet --batch <"$work/header.patch" ||
        die "patch $p does not apply to $header"
    fi
  done
  mkdir -p "$prefix/include"
  cp "$work/qemu-${version%+ds}/$header" "$prefix/include/qemu-plugin.h"
  echo "$prefix"
  exit 0
fi

work=$(mktemp -d "$cache/qemu-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
log "unpacking and patching in $work"
tar -C "$work" --no-same-owner -xf "$src_dir/$tarball"
tree=$work/qemu-${version%+ds}
for p in "${patches[@]}"; do patch -d "$tree" -p1 --quiet <"$p" || die "patch $p does not apply"; done

log "configuring (alpha-softmmu, plugins on)"
mkdir "$tree/build"
(cd "$tree/build" && ../configure --python=/usr/bin/python3 --target-list=alpha-softmmu \
  --enable-plugins --disable-docs --disable-tools --disable-guest-agent --disable-gtk \
  --disable-sdl --disable-vnc --disable-spice --disable-opengl --disable-curses \
  --disable-slirp --disable-fdt --disable-install-blobs --disable-werror >&2) ||
  die "configure failed"
log "building qemu-system-alpha (a few minutes)"
ninja -C "$tree/build" -j "$jobs" qemu-system-alpha >&2 || die "ninja qemu-system-alpha failed"

rm -rf "$prefix"
mkdir -p "$prefix/bin" "$prefix/include"
cp "$tree/build/qemu-system-alpha" "$prefix/bin/"
cp "$tree/include/qemu/qemu-plugin.h" "$prefix/include/"
printf '%s\n' "Debian qemu $version + ${patches[*]##*/}" >"$prefix/SOURCE"
touch "$prefix/.complete"
log "done: $prefix"
echo "$prefix"
