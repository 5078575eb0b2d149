#!/bin/sh
# Host overhead of a cached jitted call (bench/jit_overhead.cpp): builds the
# benchmark against a build folder's libraries and runs it. Target: under
# 20 us per call beyond the kernels, for a 10-op program on f32[16,16].
#
# Usage: bench/jit_overhead.sh [build-folder] [calls per round]
# Exit status 0 when the target is met.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-}
if [ -z "$build" ]; then
  build=$(dirname "$(ls -t "$root"/build*/shardlang 2>/dev/null | head -n 1)")
fi
[ -f "$build/interp/libshardlang.a" ] || { echo "no built libraries in '$build': build shardlang first" >&2; exit 2; }
binary=$(mktemp)
trap 'rm -f "$binary"' EXIT
c++ -std=c++20 -O2 -I"$root" -I"$root/include" "$root/bench/jit_overhead.cpp" -o "$binary" \
  "$build/interp/libshardlang.a" "$build/devices/libshardlang_devices.a" "$build/typecheck/libshardlang_typecheck.a" \
  "$build/lang/libshardlang_lang.a" -Wl,-rpath,/usr/lib/x86_64-linux-gnu/openblas-pthread \
  /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so -lsleef -lfmt -lpthread \
  $(pkg-config --libs libpcre2-8 2>/dev/null || true) $(pkg-config --libs ompi-cxx 2>/dev/null || true)
"$binary" ${2:-}
