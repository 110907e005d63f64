#!/usr/bin/env bash
# Shared by run.sh and test.sh: install dependencies, build newlib (cached),
# configure and build into build/ what the default run needs (target
# dcpi-run). With --all (test.sh) everything else too: the tests and the
# parts the first run does not need (issue 31: the first report sooner): the
# ev5 machine's patched QEMU and the real mix, both cached in ~/.cache/dcpi
# (targets ev5-qemu and real-programs; `dcpi run` names them when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
bash toolchain/install-deps.sh
bash toolchain/build-newlib.sh >/dev/null
cmake -S . -B build -G Ninja >/dev/null
if [ "${1:-}" = --all ]; then
  cmake --build build
  cmake --build build --target ev5-qemu real-programs
else
  cmake --build build --target dcpi-run  # what run.sh runs; the tests come with --all
fi
