#!/usr/bin/env bash
# Shared by run.sh and test.sh: install dependencies, build newlib (cached),
# configure and build everything into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash toolchain/install-deps.sh
bash toolchain/build-newlib.sh >/dev/null
bash toolchain/build-real-programs.sh >/dev/null   # the real mix (cached)
bash qemu/machine/build-qemu.sh >/dev/null            # the ev5 machine's QEMU (cached)
cmake -S . -B build -G Ninja >/dev/null
cmake --build build
