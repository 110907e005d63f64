#!/bin/sh
# make_initrd.sh STAGE_DIR OUTPUT: a cpio "newc" archive of STAGE_DIR, the
# format the kernel's initrd file system reads (kernel/initrd.h). Paths are
# relative ("bin/init"); the kernel serves them as "/bin/init".
set -eu
stage=$1
output=$(realpath -m "$2")
cd "$stage"
find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc > "$output"
