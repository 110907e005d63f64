#!/usr/bin/env bash
# Runs every test: host unit tests, newlib link test, guest tests under QEMU.
set -euo pipefail
cd "$(dirname "$0")"
bash toolchain/install-deps.sh
bash toolchain/build-newlib.sh >/dev/null
cmake -S . -B build -G Ninja >/dev/null
cmake --build build
ctest --test-dir build --output-on-failure -j2 "$@"
