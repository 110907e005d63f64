#!/usr/bin/env bash
# Packs the workloads into the guest's initrd (cpio, newc format, the one
# the kernel reads).
#
# Usage: make-initrd.sh OUT.cpio STAGE_DIR STRIP --bin PROGRAM... --etc FILE...
#   /bin/<name>  every PROGRAM, with STRIP --strip-debug (symbols and the
#                build-id note stay, so a profile can be matched with the
#                unstripped ELF in the build directory)
#   /etc/<name>  every FILE (workload scripts *.mix, test data)
# The archive is reproducible: sorted names, owner 0:0, mode 0755/0644,
# modification time 0, inode numbers renumbered.
set -euo pipefail
out=$1 stage=$2 strip=$3
shift 3
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/etc"
dest=
for arg in "$@"; do
  case $arg in
    --bin) dest=bin ;;
    --etc) dest=etc ;;
    *)
      [ -n "$dest" ] || { echo "make-initrd: --bin or --etc expected before $arg" >&2; exit 1; }
      target=$stage/$dest/$(basename "$arg")
      if [ "$dest" = bin ]; then
        "$strip" --strip-debug -o "$target" "$arg"
        chmod 0755 "$target"
      else
        cp "$arg" "$target"
        chmod 0644 "$target"
      fi
      ;;
  esac
done
chmod 0755 "$stage/bin" "$stage/etc"
find "$stage" -exec touch -h -d @0 {} +
tmp=$out.tmp
(cd "$stage" && find bin etc -print | LC_ALL=C sort |
  cpio --quiet -o -H newc --owner 0:0 --reproducible >"$tmp")
mv "$tmp" "$out"
echo "make-initrd: $(find "$stage" -type f | wc -l) files, $(stat -c %s "$out") bytes in $out"
