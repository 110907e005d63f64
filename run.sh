#!/usr/bin/env bash
# The main job: install what is needed, build everything, boot the default
# workload under QEMU on 4 CPUs with profiling on, and show the report.
set -euo pipefail
cd "$(dirname "$0")"
bash toolchain/install-deps.sh
bash toolchain/build-newlib.sh >/dev/null
cmake -S . -B build -G Ninja >/dev/null
cmake --build build
python3 qemu/run_profile.py --build build "$@"
