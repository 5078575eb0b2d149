#!/bin/sh
# All-gather and all-reduce of 256 MiB across processes: shardlang's
# collectives against MPI's own, in one run (bench/mpi_collectives.cpp),
# for each process count given (default 2 4). Needs the MPI build.
#
# Usage: bench/mpi_collectives.sh [build-folder] [process counts...]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
[ $# -gt 0 ] && shift
counts=${*:-2 4}
[ -f "$build/devices/libshardlang_devices.a" ] || { echo "no built libraries in '$build': build shardlang first" >&2; exit 2; }
binary=$(mktemp)
trap 'rm -f "$binary"' EXIT
mpicxx -std=c++20 -O2 -I"$root" -I"$root/include" "$root/bench/mpi_collectives.cpp" -o "$binary" \
  "$build/devices/libshardlang_devices.a" "$build/typecheck/libshardlang_typecheck.a" \
  -Wl,-rpath,/usr/lib/x86_64-linux-gnu/openblas-pthread /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so \
  -lsleef -lfmt -lpthread
for count in $counts; do
  mpirun --oversubscribe --allow-run-as-root -np "$count" "$binary"
done
