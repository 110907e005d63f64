#!/usr/bin/env bash
# Runs every test: host unit tests, newlib link test, guest tests under QEMU.
set -euo pipefail
cd "$(dirname "$0")"
toolchain/setup.sh --all
ctest --test-dir build --output-on-failure -j2 "$@"
