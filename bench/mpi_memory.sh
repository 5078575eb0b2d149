#!/bin/sh
# Peak resident memory of each process for a 4 GiB f32 array sharded over 8
# simulated devices, run by mpirun with 1, 2 and 4 processes (or those
# given): each process holds its devices' shards, about 1/P of the array.
# The array is made sharded (lax.broadcast_in_dim with out_sharding, times
# the row numbers), so that no process ever holds it whole.
#
# Usage: bench/mpi_memory.sh [path/to/shardlang] [process counts...]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/build/shardlang}
[ $# -gt 0 ] && shift
counts=${*:-1 2 4}
[ -x "$binary" ] || { echo "no shardlang binary: build it, or pass its path" >&2; exit 2; }
program=$(mktemp --suffix=.shl)
reports=$(mktemp -d)
trap 'rm -rf "$program" "$reports"' EXIT
cat > "$program" <<'SHL'
import jax
import jax.numpy as jnp
mesh = jax.make_mesh((8,), ('x',))
one = jax.device_put(jnp.float32(1.0), jax.NamedSharding(mesh, jax.P()))
ones = jax.lax.broadcast_in_dim(one, (32768, 32768), (), out_sharding=jax.NamedSharding(mesh, jax.P('x')))
# Every device's ones are one shared block: rows numbered, each device's own.
x = ones * jnp.arange(32768.0)[:, None]
del ones
if jax.process_index() == 0:
  print('4 GiB over', len(x.sharding.device_set), 'devices,', jax.process_count(), 'processes')
SHL
for count in $counts; do
  mpirun --oversubscribe --allow-run-as-root -np "$count" \
    sh -c '/usr/bin/time -v "$0" run --platform cpu --devices 8 "$1" 2> "$2/rss.$OMPI_COMM_WORLD_RANK"' \
    "$binary" "$program" "$reports"
  for rank in $(seq 0 $((count - 1))); do
    kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$reports/rss.$rank")
    awk -v c="$count" -v r="$rank" -v k="$kib" 'BEGIN { printf "-np %d process %d: peak resident %.2f GiB\n", c, r, k / 1048576 }'
  done
done
