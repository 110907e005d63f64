#!/usr/bin/env bash
# The main job: install what is needed, build everything, boot the default
# workload mix under QEMU on 4 CPUs with the DCPI profiler on, store the
# profile database, and show the per-procedure report.
# Options go to `dcpi run` (e.g. ./run.sh --cpus 2 --workloads copy,stream).
# The latest run's database is left in build/last-run.db (replaced each time;
# use `build/dcpi run --db DIR` to keep several runs as epochs of one database).
set -euo pipefail
cd "$(dirname "$0")"
toolchain/setup.sh
db=build/last-run.db
rm -rf "$db"
build/dcpi run --db "$db" "$@"
echo
# No --images: dcpi run recorded where its images are (docs/reports.md).
build/dcpi prof --db "$db" --limit 25
