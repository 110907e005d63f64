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
# The ev5 machine's QEMU and the real mix are built when first asked for
# (cached; the default run needs neither: issue 31, the first report sooner).
targets=()
case " $* " in *" --machine ev5 "* | *" --machine=ev5 "*) targets+=(ev5-qemu) ;; esac
case " $* " in *" --mix real "* | *" --mix=real "*) targets+=(real-programs) ;; esac
# Calling contexts and paths on several CPUs need the patched QEMU too (its
# plugins get the right CPU under round-robin icount; hostdump/run/machine_files.cpp).
# Several CPUs' plug-ins need the real CPU in each callback (our patched QEMU).
case " $* " in *" --contexts "* | *" --paths "* | *" --truth "* | *" --truth="*) targets+=(ev5-qemu) ;; esac
if [ ${#targets[@]} -gt 0 ]; then cmake --build build --target "${targets[@]}"; fi
db=build/last-run.db
rm -rf "$db"
build/dcpi run --db "$db" "$@"
echo
# No --images: dcpi run recorded where its images are (docs/reports.md).
build/dcpi prof --db "$db" --limit 25
