#!/usr/bin/env bash
# Collective latency table for MPICH and Open MPI on this machine.
#
# Usage: bench/collective_latency/run.sh [build-dir] [slow-iters] [fast-iters]
#   build-dir   where binaries are built (default /tmp/ordo-latency)
#   slow-iters  iterations for plain MPICH (default: program default, 40)
#   fast-iters  iterations for the other configurations (default 1000)
# Environment:
#   RANKS    rank counts to run (default "2 3 4 5 6 7 8")
#   CONFIGS  configurations to run (default "mpich:default mpich:yield openmpi:default")
#
# Configurations:
#   mpich:default    mpiexec.mpich, no settings.
#   mpich:yield      mpiexec.mpich with LD_PRELOAD of a small interposer that
#                    wraps ucp_worker_progress() and calls sched_yield() when a
#                    progress poll completes nothing. MPICH 4.0.2 on Linux is
#                    built with its yield macro as a no-op, so its wait loops
#                    busy-poll through whole scheduler ticks when ranks > cores;
#                    the interposer only gives the CPU away while a rank waits.
#                    Same library, same collective algorithms, same transports.
#   openmpi:default  mpiexec.openmpi --allow-run-as-root --oversubscribe.
#
# Every mpiexec call runs under `timeout 120`.
set -u

src_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build_dir=${1:-/tmp/ordo-latency}
slow_iters=${2:-}
fast_iters=${3:-1000}
ranks_list=${RANKS:-"2 3 4 5 6 7 8"}
configs=${CONFIGS:-"mpich:default mpich:yield openmpi:default"}

mkdir -p "$build_dir" || exit 1

mpicc.mpich -O2 -o "$build_dir/collective_latency.mpich" \
    "$src_dir/collective_latency.c" || exit 1
mpicc.openmpi -O2 -o "$build_dir/collective_latency.openmpi" \
    "$src_dir/collective_latency.c" || exit 1

# Interposer for mpich:yield (generated here so it stays out of the source tree).
cat >"$build_dir/ordo_yield_idle.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>

typedef unsigned (*ordo_progress_fn)(void *);

/* Same signature as UCX's ucp_worker_progress(ucp_worker_h). */
unsigned ucp_worker_progress(void *worker) {
    static ordo_progress_fn real_progress;
    if (real_progress == NULL) {
        real_progress = (ordo_progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
    }
    const unsigned completed = real_progress(worker);
    if (completed == 0) {
        sched_yield();
    }
    return completed;
}
EOF
cc -O2 -shared -fPIC -o "$build_dir/libordo_yield_idle.so" \
    "$build_dir/ordo_yield_idle.c" -ldl || exit 1

# Columns: routine/count pairs in the order the program prints them.
columns="MPI_Allreduce:1 MPI_Allreduce:1024 MPI_Reduce:1 MPI_Reduce:1024 \
MPI_Scan:1 MPI_Scan:1024 MPI_Reduce_scatter_block:1 MPI_Reduce_scatter_block:1024"

printf '# microseconds per call (max over ranks); Allreduce/Reduce/Scan/Reduce_scatter_block on 1 and 1024 MPI_INT\n'
printf '%-8s %-8s %5s %10s %10s %10s %10s %10s %10s %10s %10s\n' \
    library settings ranks allred1 allred1k reduce1 reduce1k scan1 scan1k redscat1 redscat1k

for config in $configs; do
    library=${config%%:*}
    settings=${config#*:}
    for ranks in $ranks_list; do
        case $config in
            mpich:default)
                cmd=(mpiexec.mpich -n "$ranks" "$build_dir/collective_latency.mpich")
                iters=$slow_iters ;;
            mpich:yield)
                cmd=(mpiexec.mpich -genv LD_PRELOAD "$build_dir/libordo_yield_idle.so"
                     -n "$ranks" "$build_dir/collective_latency.mpich")
                iters=$fast_iters ;;
            openmpi:default)
                cmd=(mpiexec.openmpi --allow-run-as-root --oversubscribe -n "$ranks"
                     "$build_dir/collective_latency.openmpi")
                iters=$fast_iters ;;
            *)
                echo "unknown configuration: $config" >&2
                continue ;;
        esac
        if [ -n "$iters" ]; then cmd+=("$iters"); fi
        output=$(timeout 120 "${cmd[@]}" 2>/dev/null)
        status=$?
        row=()
        for column in $columns; do
            routine=${column%%:*}
            count=${column#*:}
            value=$(printf '%s\n' "$output" |
                awk -v r="$routine" -v c="count=$count" '$1 == r && $2 == c {
                    sub("us_per_call=", "", $5); print $5 }')
            if [ -z "$value" ]; then
                if [ $status -eq 124 ]; then value=timeout; else value=fail; fi
            fi
            row+=("$value")
        done
        printf '%-8s %-8s %5s %10s %10s %10s %10s %10s %10s %10s %10s\n' \
            "$library" "$settings" "$ranks" "${row[@]}"
    done
done
