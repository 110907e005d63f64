#!/usr/bin/env bash
# The main job: install what is needed, build everything, boot the default
# workload under QEMU on 4 CPUs with profiling on, and show the report.
set -euo pipefail
cd "$(dirname "$0")"
toolchain/setup.sh
python3 qemu/run_profile.py --build build "$@"
